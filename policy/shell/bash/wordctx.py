"""Walker mixin: word expansion, substitutions, assignments, redirections, command names."""

from __future__ import annotations

import os
import re
from typing import Any

import bashlex

from cairn.policy.levels import RiskLevel
from cairn.policy.paths import home_dir
from cairn.policy.shell.bash.arith import input_in_arithmetic
from cairn.policy.shell.bash.rewrite import HEREDOC_RE
from cairn.policy.shell.bash.state import Base, Ctx, Cwds, short, walk_parts
from cairn.policy.shell.bash.static import evaluate_argv_chain, heredoc_substitutions
from cairn.policy.shell.bash.words import UNKNOWN, WordExp, expand_word
from cairn.policy.shell.commands import classify
from cairn.policy.shell.envvars import dangerous_env, harmless_env
from cairn.policy.shell.result import StageInfo
from cairn.policy.vocab import words

__all__ = ["WordsMixin"]

MEDIUM, HIGH = RiskLevel.MEDIUM, RiskLevel.HIGH
_KNOWN_ENV = words(
    """USER LOGNAME CAIRN_HOME TMPDIR XDG_CONFIG_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_CACHE_HOME"""
)
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=(.*)$", re.DOTALL)


class WordsMixin(Base):
    def command_name_checks(self, word: Any, exp: WordExp, substs: list[StageInfo], source: str) -> None:
        raw = self.text(word)
        values = [v[0] for v in exp.values if v]
        if any(s.download or s.decoder or s.literal_decoded for s in substs) or any(
            self.s.taint.get(n) for n in re.findall(r"\$\{?!?([A-Za-z_][A-Za-z0-9_]*)", raw)
        ):
            self.r.add_hard_deny(
                f"runs a command whose name is decoded or downloaded at run time: {short(source)}"
            )
            return
        if exp.dynamic:
            shown = ", ".join(repr(v) for v in values if UNKNOWN not in v) or "unknown"
            self.r.add_ask(HIGH, f"the command name {raw} is computed at run time (it expands to {shown})")
        elif exp.quoted and values and values[0] != raw and not raw.startswith("\\"):
            self.r.add_ask(MEDIUM, f"the command name {raw} is written with quotes or escapes")

    def prefix_assignment(self, node: Any, cwds: Cwds, persist: bool, source: str) -> None:
        m = _ASSIGN.match(self.text(node))
        if not m:
            return
        name, value_raw = m.group(1), m.group(3)
        exp = expand_word(value_raw, self.env_view(cwds), self.subst_eval, assignment=True)
        values = [" ".join(v) for v in exp.values] or [""]
        if exp.evaluates:
            self.r.add_fail(f"{exp.evaluates} (a value such as a[$(cmd)] would run cmd): {short(source)}")
        value = values[0] if len(values) == 1 and UNKNOWN not in values[0] else None
        if not persist and not harmless_env(name, value):
            self.r.add_ask(
                HIGH,
                f"sets {name} for the command; only locale, time zone, colour and terminal "
                f"variables may stand before a command without asking: {short(source)}",
            )
        elif dangerous_env(name, value):
            self.r.add_ask(HIGH, f"sets {name}, which can make commands run other code: {short(source)}")
        if persist:
            self.assign(name, values)
            if input_in_arithmetic([value_raw], self.s.input_vars):
                self.s.input_vars.add(name)  # count=$OPTARG carries input on
            if exp.subst:
                substs = [
                    p for p in walk_parts(node) if p.kind in ("commandsubstitution", "processsubstitution")
                ]
                if any(
                    re.search(r"\b(curl|wget|nc|base64|xxd|openssl|rev|printf|fetch)\b", self.text(p))
                    for p in substs
                ):
                    self.s.taint[name] = "decoded or downloaded"

    def assign(self, name: str, values: list[str]) -> None:
        old = self.s.env.get(name, [])
        merged = old + [v for v in values if v not in old]
        self.s.env[name] = merged if len(merged) <= 8 else [UNKNOWN, *merged[-7:]]

    def env_view(self, cwds: Cwds) -> dict[str, list[str]]:
        env: dict[str, list[str]] = {"HOME": [str(home_dir())], "IFS": [" \t\n"]}
        for name in _KNOWN_ENV:  # path-like variables the shell inherits (secrets are never read)
            if os.environ.get(name):
                env[name] = [os.environ[name]]
        if cwds is not None and len(cwds) == 1:
            env["PWD"] = [str(next(iter(cwds)))]
        env.update(self.s.env)
        return env

    def expand(self, word: Any, cwds: Cwds) -> WordExp:
        raw = self.text(word)
        for part in getattr(word, "parts", []) or []:
            if part.kind == "processsubstitution":
                marker = f"/dev/fd/{60 + len(self.procsubs)}"
                self.procsubs[marker] = getattr(part, "_cairn_info", StageInfo(text=self.text(part)))
                return WordExp(values=[[marker]], subst=True)
        return expand_word(raw, self.env_view(cwds), self.subst_eval, assignment=word.kind == "assignment")

    def subst_eval(self, inner: str) -> str | None:
        """The output of a tiny ``$(…)`` when it can be known statically."""
        try:
            trees = bashlex.parse(inner)
        except Exception:
            return None
        if len(trees) != 1 or trees[0].kind not in ("command", "pipeline"):
            return None
        stages = (
            [trees[0]] if trees[0].kind == "command" else [p for p in trees[0].parts if p.kind == "command"]
        )
        argvs: list[list[str]] = []
        literal: dict[int, str | None] = {}
        for k, stage in enumerate(stages):
            if any(p.kind != "word" for p in stage.parts):
                return None
            words = [p.word for p in stage.parts]
            if any("$" in w or "`" in w for w in words):
                return None
            argvs.append(words)
            if words and words[0] in ("echo", "printf"):
                literal[k] = classify(words).literal
        return evaluate_argv_chain(argvs, literal)

    def visit_substitutions(self, node: Any, cwds: Cwds, ctx: Ctx) -> list[StageInfo]:
        infos: list[StageInfo] = []
        quoted = _single_quoted_spans(self.text(node), node.pos[0]) if node.kind == "assignment" else []
        if node.kind == "assignment" and re.search(r"\[[^\]]*(\$\(|`)", self.text(node)):
            self.r.add_fail(
                f"the assignment {short(self.text(node))} stores a[$(…)], which runs a command when used in arithmetic"
            )
        for part in walk_parts(node):
            if part.kind in ("commandsubstitution", "processsubstitution"):
                if any(a <= part.pos[0] < b for a, b in quoted):
                    continue  # bashlex reports $(…) inside single quotes in assignments; bash does not run it
                _, info = self.visit(part.command, cwds, Ctx())
                part._cairn_info = info
                infos.append(info)
        return infos

    def stdin_from(self, redirect: Any, ctx: Ctx) -> None:
        kind = redirect.type
        target = redirect.output
        if kind == "<<<" and hasattr(target, "word"):
            m = HEREDOC_RE.fullmatch(target.word)
            if m and int(m.group(1)) < len(self.heredocs):
                doc = self.heredocs[int(m.group(1))]
                ctx.stdin_text = doc.body
                if not doc.quoted:
                    found, unsafe = heredoc_substitutions(doc.body)
                    if unsafe:
                        self.r.add_fail("a here-document has command substitution inside ${...} or $((...))")
                    for code in found:
                        self.nested(code, None, "command substitution in a here-document")
                return
            ctx.stdin_text = target.word
        elif kind == "<" and hasattr(target, "word"):
            fd = getattr(redirect, "input", None)
            if fd not in (None, 0, "0"):  # exec 3</dev/zero: read later through <&3
                self.s.fds[str(fd)] = target.word
                return
            ctx.stdin_file = target.word
        elif kind == "<&" and str(target) in self.s.fds and getattr(redirect, "input", 0) in (None, 0, "0"):
            ctx.stdin_file = self.s.fds[str(target)]

    def redirect(self, node: Any, cwds: Cwds, ctx: Ctx, source: str, info: StageInfo | None = None) -> None:
        kind = node.type
        target = node.output
        if kind in ("<<<", "<<", "<<-"):
            return
        if not hasattr(target, "kind"):  # a file descriptor number (2>&1)
            return
        if kind in (">&", "<&") and re.fullmatch(r"\d+-?|-", target.word or ""):
            return
        for part in walk_parts(target):
            if part.kind == "processsubstitution":
                feeds = [info] if info is not None and kind in (">", ">>", ">|", "&>", "&>>", ">&") else []
                self.visit(part.command, cwds, Ctx(upstream=feeds))
                return
        exp = self.expand(target, cwds)
        if exp.evaluates:
            self.r.add_fail(f"{exp.evaluates}: {short(source)}")
        values = [v[0] if v else "" for v in exp.values] or [""]
        for value in values:
            if re.match(r"^/dev/(tcp|udp)/", value):
                self.r.add_hard_deny(
                    f"opens a raw network socket with {value} (reverse shell or exfiltration): {short(source)}"
                )
                self.s.network.append(source)
                self.check_exfiltration()
                continue
            # <> opens for reading and writing: a write
            self.effect(
                "read" if kind == "<" else "write", value, cwds, short(source), None, via_redirect=True
            )


def _single_quoted_spans(text: str, offset: int) -> list[tuple[int, int]]:
    """Absolute spans of single-quoted text in ``text`` (which starts at ``offset``)."""
    spans: list[tuple[int, int]] = []
    i = 0
    in_double = False
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            in_double = not in_double
        elif ch == "'" and not in_double:
            end = text.find("'", i + 1)
            end = len(text) if end == -1 else end
            spans.append((offset + i, offset + end))
            i = end
        i += 1
    return spans
