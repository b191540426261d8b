"""Walking the bashlex AST: every simple command, pipeline stage, substitution and redirection.

The walker keeps a little state while it goes: the possible working directories (``cd sub &&
ls`` lists ``sub``; a ``cd`` that may fail leaves both), literal variable assignments (so
``a=rm; $a -rf /`` is seen as ``rm -rf /``), defined functions, and files the command downloads
(so ``curl -o x.sh …; sh x.sh`` is caught).  Per simple command it expands the words, asks the
command table, unwraps wrappers, analyses code passed as strings, and records units and path
effects in the shared :class:`ShellAnalysis`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from policy.levels import RiskLevel
from policy.paths import critical_reason, home_dir, is_neutral_device, resolve_path, sensitive_read_reason
from policy.shell.commands import classify, command_name
from policy.shell.envvars import dangerous_env
from policy.shell.result import Classified, PathEffect, ShellAnalysis, StageInfo, Unit
from policy.shell.rewrite import HEREDOC_RE, Rewritten
from policy.shell.static import backstop, evaluate_argv_chain, heredoc_substitutions
from policy.shell.words import UNKNOWN, WordExp, expand_word
from tools.workspace import Workspace

__all__ = ["Shared", "Walker"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH
Cwds = frozenset[Path] | None  # None: the working directory cannot be known
MAX_UNITS = 50
_GLOB = re.compile(r"[*?\[]")
_EVERYTHING = {"*", ".*", "*/", ".*/", "**", "*.*", "{*,.*}", ".[!.]*", "..?*"}
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=(.*)$", re.DOTALL)


@dataclass
class Shared:
    """State shared by the walkers of one command string (nested code included)."""

    workspace: Workspace
    result: ShellAnalysis
    env: dict[str, list[str]] = field(default_factory=dict)
    taint: dict[str, str] = field(default_factory=dict)  # variable -> "downloaded"/"decoded"
    functions: set[str] = field(default_factory=set)
    downloaded: set[str] = field(default_factory=set)
    network: list[str] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)
    units: int = 0


@dataclass
class _Ctx:
    """Per-command context: what feeds its stdin, and what its wrapper passes down."""

    upstream: list[StageInfo] = field(default_factory=list)
    placeholder: str | None = None  # "{}" in find -exec / xargs -I
    placeholder_paths: list[str] = field(default_factory=list)
    placeholder_critical: bool = False  # the placeholder can be the start point itself (find without tests)
    extra_operands: bool = False  # xargs appends operands from stdin
    stdin_text: str | None = None  # here-doc / here-string body
    stdin_file: str | None = None  # `< file`
    stdin_unknown: bool = False
    source: str = ""


class Walker:
    def __init__(self, shared: Shared, rewritten: Rewritten, depth: int = 0) -> None:
        self.s = shared
        self.r = shared.result
        self.ws = shared.workspace
        self.src = rewritten.text
        self.heredocs = rewritten.heredocs
        self.depth = depth
        self.procsubs: dict[str, StageInfo] = {}

    # -- entry -----------------------------------------------------------------------------
    def walk(self, trees: list[Any], cwds: Cwds) -> Cwds:
        for tree in trees:
            cwds, _ = self.visit(tree, cwds, _Ctx())
        return cwds

    def nested(self, code: str, cwds: Cwds, why: str) -> StageInfo:
        """Analyse shell code run by bash -c, eval, a here-doc to a shell, ``echo … | sh``."""
        from policy.shell.analysis import parse_into

        if UNKNOWN in code:
            self.r.add_ask(HIGH, f"{why} is only known at run time")
            code = code.replace(UNKNOWN, "__cairn_unknown__")
        if self.depth >= 4:
            self.r.add_fail(f"code nested more than 4 levels deep ({why})")
            for found in backstop(code):
                self.r.add_hard_deny(f"{why} contains {found}")
            return StageInfo(text=code)
        return parse_into(code, self.s, cwds, self.depth + 1, why)

    # -- dispatch ------------------------------------------------------------------------------
    def visit(self, node: Any, cwds: Cwds, ctx: _Ctx) -> tuple[Cwds, StageInfo]:
        kind = node.kind
        if kind == "list":
            return self.visit_list(node, cwds)
        if kind == "pipeline":
            return self.visit_pipeline(node, cwds)
        if kind == "command":
            return self.visit_command(node, cwds, ctx)
        if kind == "compound":
            return self.visit_compound(node, cwds, ctx)
        if kind in ("if", "while", "until"):
            return self.visit_branches(node, cwds)
        if kind == "for":
            return self.visit_for(node, cwds)
        if kind == "function":
            return self.visit_function(node, cwds)
        return cwds, StageInfo(text=self.text(node))

    def text(self, node: Any) -> str:
        start, end = node.pos
        return self.src[start:end]

    def visit_list(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        cur: Cwds = cwds
        last = StageInfo(text=self.text(node))
        parts = node.parts
        for k, part in enumerate(parts):
            if part.kind == "operator":
                continue
            before = cur
            succ, last = self.visit(part, cur, _Ctx())
            nxt = parts[k + 1] if k + 1 < len(parts) else None
            if nxt is not None and nxt.kind == "operator" and nxt.op == "&&":
                cur = succ
            else:
                cur = _union(before, succ)
        return cur, last

    def visit_pipeline(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        stages = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
        upstream: list[StageInfo] = []
        info = StageInfo(text=self.text(node))
        for stage in stages:
            _, info = self.visit(stage, cwds, _Ctx(upstream=list(upstream)))
            upstream.append(info)
        shells = [s for s in upstream if s.shell_like]
        if shells and any(s.network and not s.shell_like for s in upstream):
            self.r.add_hard_deny(
                f"a shell and a network connection in one pipeline (reverse shell): {self.text(node)}"
            )
        combined = StageInfo(
            text=self.text(node),
            download=info.download,
            decoder=info.decoder,
            literal=info.literal,
            literal_decoded=info.literal_decoded,
            network=any(s.network for s in upstream),
        )
        return cwds, combined

    def visit_compound(self, node: Any, cwds: Cwds, ctx: _Ctx) -> tuple[Cwds, StageInfo]:
        items = [p for p in node.list if p.kind != "reservedword"]
        subshell = bool(node.list) and node.list[0].kind == "reservedword" and node.list[0].word == "("
        cur = cwds
        info = StageInfo(text=self.text(node))
        infos: list[StageInfo] = []
        for item in items:
            cur, info = self.visit(item, cur, ctx if len(items) == 1 else _Ctx())
            infos.append(info)
        for redirect in getattr(node, "redirects", []) or []:
            self.redirect(redirect, cwds, ctx, self.text(node))
        merged = StageInfo(
            text=self.text(node),
            download=any(i.download for i in infos),
            decoder=any(i.decoder for i in infos),
            network=any(i.network for i in infos),
            shell_like=any(i.shell_like for i in infos),
        )
        return (cwds if subshell else cur), merged

    def visit_branches(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        cur = cwds
        for part in node.parts:
            if part.kind in ("reservedword", "operator"):
                continue
            succ, _ = self.visit(part, cur, _Ctx())
            cur = _union(cur, succ)
        for redirect in getattr(node, "redirects", []) or []:
            self.redirect(redirect, cwds, _Ctx(), self.text(node))
        return cur, StageInfo(text=self.text(node))

    def visit_for(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        parts = node.parts
        name: str | None = None
        values: list[str] = []
        seen_in = False
        body = []
        for part in parts:
            if part.kind == "reservedword":
                if part.word == "in":
                    seen_in = True
                continue
            if part.kind == "word" and name is None:
                name = part.word
                continue
            if part.kind == "word" and seen_in:
                self.visit_substitutions(part, cwds, _Ctx())
                exp = self.expand(part, cwds)
                for candidate in exp.values:
                    values.extend(candidate)
                continue
            body.append(part)
        if name:
            self.assign(name, (values or [UNKNOWN])[:8])
        cur = cwds
        for part in body:
            succ, _ = self.visit(part, cur, _Ctx())
            cur = _union(cur, succ)
        return cur, StageInfo(text=self.text(node))

    def visit_function(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        name_node = next(p for p in node.parts if p.kind == "word")
        name = name_node.word
        self.s.functions.add(name)
        body = node.parts[-1]
        before = len(self.r.units)
        self.visit(body, cwds, _Ctx())
        calls = [u for u in self.r.units[before:] if u.argv[:1] == [name]]
        body_text = self.text(body)
        if calls and re.search(r"(^|[^|])\|([^|]|$)|&\s*(\}|$|;)", body_text):
            self.r.add_hard_deny(
                f"the function {name} calls itself in a pipe or in the background (a fork bomb)"
            )
        self.r.add_ask(MEDIUM, f"defines the shell function {name} (it can shadow a command for later calls)")
        return cwds, StageInfo(text=self.text(node))

    # -- simple commands ----------------------------------------------------------------------
    def visit_command(self, node: Any, cwds: Cwds, ctx: _Ctx) -> tuple[Cwds, StageInfo]:
        source = self.text(node)
        ctx.source = source
        assignments = []
        words = []
        redirects = []
        for part in node.parts:
            if part.kind == "assignment" and not words:
                assignments.append(part)
            elif part.kind == "redirect":
                redirects.append(part)
            elif part.kind in ("word", "assignment"):
                words.append(part)
        for redirect in redirects:
            self.stdin_from(redirect, ctx)
        subst_infos: dict[int, list[StageInfo]] = {}
        for k, word in enumerate(words):
            subst_infos[k] = self.visit_substitutions(word, cwds, ctx)
        for assignment in assignments:
            self.visit_substitutions(assignment, cwds, ctx)
        exps = [self.expand(w, cwds) for w in words]
        argvs = _argv_candidates(exps)
        # prefix assignments apply to this command only; standalone ones persist
        for assignment in assignments:
            self.prefix_assignment(assignment, cwds, persist=not words, source=source)
        if words:
            self.command_name_checks(words[0], exps[0], subst_infos.get(0, []), source)
        info = StageInfo(text=source)
        succ: Cwds = cwds
        runs_code = False
        for k, argv in enumerate(argvs):
            if not argv:
                continue
            cls = classify(argv)
            runs_code = runs_code or bool(
                cls.nested_code or cls.exec_files or cls.stdin_code or cls.inline_code
            )
            before_units, before_effects = len(self.r.units), len(self.r.effects)
            after = self.process(argv, cls, cwds, ctx, parent=None, source=source)
            succ = after if k == 0 else _union(succ, after)
            info = self.stage_info(cls, info, self.r.effects[before_effects:])
            for unit in self.r.units[before_units:]:
                unit.deny_forms.append(" ".join(source.split()))
        tainted = [
            i for infos in subst_infos.values() for i in infos if i.download or i.decoder or i.literal_decoded
        ]
        if runs_code and tainted:
            what = "downloaded" if any(i.download for i in tainted) else "decoded"
            self.r.add_hard_deny(f"runs code that is {what} at run time: {_short(source)}")
        for redirect in redirects:
            self.redirect(redirect, cwds, ctx, source, info)
        return succ, info

    def stage_info(self, cls: Classified, info: StageInfo, effects: list[PathEffect]) -> StageInfo:
        info.download = info.download or cls.download_stdout
        info.decoder = info.decoder or cls.decoder
        info.network = info.network or cls.network
        info.shell_like = (
            info.shell_like or cls.stdin_code or bool(cls.nested_code and cls.category == "wrapper")
        )
        if cls.literal is not None:
            info.literal = cls.literal
            info.literal_decoded = cls.decoder
        if cls.lists_paths:
            info.lists_inside = all(e.info is not None and e.info.inside for e in effects if e.kind == "read")
        return info

    def process(
        self, argv: list[str], cls: Classified, cwds: Cwds, ctx: _Ctx, parent: int | None, source: str
    ) -> Cwds:
        """Record one (possibly wrapped) command and follow what it runs."""
        self.s.units += 1
        if self.s.units == MAX_UNITS + 1:
            self.r.add_fail(f"more than {MAX_UNITS} simple commands")
        name, _ = command_name(argv[0])
        if name in self.s.functions and argv[0] == name:
            cls = Classified("neutral", LOW, f"calls the shell function {name} defined above")
        text = " ".join(argv).replace(UNKNOWN, "…")
        forms = [text]
        deny_forms = [text, " ".join([name, *argv[1:]])]
        unit = Unit(
            text=_short(text),
            argv=argv,
            category=cls.category,
            risk=cls.risk,
            reason=cls.reason,
            forms=forms,
            deny_forms=deny_forms,
            parent=parent,
            auto_edit=cls.auto_edit,
            destructive=cls.destructive,
        )
        self.r.units.append(unit)
        index = len(self.r.units) - 1
        where = _short(source if parent is None else text)
        for reason in cls.hard_deny:
            self.r.add_hard_deny(f"{reason}: {where}")
        self.mentions(argv, cwds)
        if cls.network:
            self.s.network.append(where)
            self.check_exfiltration()
        if cls.assignments:
            for item in cls.assignments:
                var, _, value = item.partition("=")
                if dangerous_env(var, value):
                    self.r.add_ask(HIGH, f"sets {var}, which can make commands run other code: {where}")
        # paths
        reads, writes = list(cls.reads), list(cls.writes)
        if ctx.placeholder:
            reads = [r for r in reads if ctx.placeholder not in r]
            writes = [w for w in writes if ctx.placeholder not in w]
            if any(ctx.placeholder in a for a in argv[1:]):
                if cls.writes or cls.category == "write":
                    writes.extend(ctx.placeholder_paths)
                else:
                    reads.extend(ctx.placeholder_paths)
        for word in reads:
            self.effect("read", word, cwds, where, index)
        for word in writes:
            self.effect("write", word, cwds, where, index)
        if ctx.extra_operands and unit.category not in ("neutral", "silent"):
            upstream = ctx.upstream[-1] if ctx.upstream else None
            if not (upstream and upstream.lists_inside):
                kind = "write" if cls.category == "write" else "read"
                self.r.effects.append(
                    PathEffect(kind, "(paths from xargs input)", None, where, unit_index=index)
                )
        for word, action in cls.critical:
            if ctx.placeholder and ctx.placeholder in word:
                for path in ctx.placeholder_paths if ctx.placeholder_critical else []:
                    self.critical(path, action, cwds, where)
                continue
            self.critical(word, action, cwds, where)
        for code in cls.inline_code:
            for found in backstop(code):
                self.r.add_hard_deny(f"inline code contains {found}: {where}")
        for path in cls.exec_files:
            self.executes(path, cwds, where)
        for path in cls.download_files:
            for eff in self.resolve(path, cwds):
                if eff is not None:
                    self.s.downloaded.add(str(eff.path))
        if cls.stdin_code:
            self.code_from_stdin(ctx, cwds, where, shell=command_name(argv[0])[0] in _SHELL_NAMES)
        for code in cls.nested_code:
            self.nested(code, cwds, f"code run by {name}")
        succ = cwds
        if cls.cd is not None:
            succ = self.change_dir(cls.cd, cwds, where, index)
        if cls.inner:
            self.follow_inner(cls, name, cwds, ctx, index, source)
        return succ

    def follow_inner(
        self, cls: Classified, name: str, cwds: Cwds, ctx: _Ctx, index: int, source: str
    ) -> None:
        """Classify the command a wrapper runs (with xargs input spelled out when it is known)."""
        assert cls.inner is not None
        inner_ctx = _Ctx(
            upstream=ctx.upstream,
            extra_operands=cls.inner_extra_operands,
            source=ctx.source,
            stdin_text=ctx.stdin_text,
            stdin_file=ctx.stdin_file,
        )
        if cls.inner_placeholder:
            inner_ctx.placeholder = cls.inner_placeholder
            if name in ("find", "fd", "fdfind"):
                inner_ctx.placeholder_paths = list(cls.reads)
                inner_ctx.placeholder_critical = cls.unfiltered
        argvs = [cls.inner]
        if cls.inner_extra_operands:
            known = None
            if ctx.upstream and ctx.upstream[-1].literal is not None:
                known = ctx.upstream[-1].literal.split()
            elif not ctx.upstream and ctx.stdin_text is not None:
                known = ctx.stdin_text.split()
            if known is not None and len(known) <= 50:
                inner_ctx.extra_operands = False
                if cls.inner_placeholder:
                    argvs = [
                        [a.replace(cls.inner_placeholder, item) for a in cls.inner] for item in known[:8]
                    ]
                    inner_ctx.placeholder = None
                else:
                    argvs = [cls.inner + known]
        for argv in argvs:
            self.process(argv, classify(argv), cwds, inner_ctx, parent=index, source=source)

    # -- checks ------------------------------------------------------------------------------
    def command_name_checks(self, word: Any, exp: WordExp, substs: list[StageInfo], source: str) -> None:
        raw = self.text(word)
        values = [v[0] for v in exp.values if v]
        if any(s.download or s.decoder or s.literal_decoded for s in substs) or any(
            self.s.taint.get(n) for n in re.findall(r"\$\{?!?([A-Za-z_][A-Za-z0-9_]*)", raw)
        ):
            self.r.add_hard_deny(
                f"runs a command whose name is decoded or downloaded at run time: {_short(source)}"
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
        exp = expand_word(value_raw, self.env_view(cwds), self.subst_eval, split=False, assignment=True)
        values = [" ".join(v) for v in exp.values] or [""]
        if dangerous_env(name, values[0] if len(values) == 1 else None):
            self.r.add_ask(HIGH, f"sets {name}, which can make commands run other code: {_short(source)}")
        if persist:
            self.assign(name, values)
            if exp.subst:
                substs = [
                    p for p in _walk_parts(node) if p.kind in ("commandsubstitution", "processsubstitution")
                ]
                if any(
                    re.search(r"\b(curl|wget|nc|base64|xxd|openssl|rev|printf|fetch)\b", self.text(p))
                    for p in substs
                ):
                    self.s.taint[name] = "decoded or downloaded"

    def assign(self, name: str, values: list[str]) -> None:
        old = self.s.env.get(name, [])
        merged = old + [v for v in values if v not in old]
        self.s.env[name] = merged[-8:]

    def check_exfiltration(self) -> None:
        if self.s.network and self.s.credentials:
            self.r.add_hard_deny(
                f"reads credentials ({self.s.credentials[0]}) and talks to the network "
                f"({self.s.network[0]}): exfiltration"
            )

    def mentions(self, argv: list[str], cwds: Cwds) -> None:
        for word in argv[1:]:
            candidates = {word}
            if "=" in word:
                candidates.add(word.split("=", 1)[1])
            for piece in re.split(r"[=:,]", word):
                candidates.add(piece)
            if "@" in word:
                candidates.add(word.rsplit("@", 1)[1])
            for cand in candidates:
                cand = cand.lstrip("@<")
                if not cand or UNKNOWN in cand or not ("/" in cand or cand.startswith(("~", "."))):
                    continue
                for info in self.resolve(cand, cwds):
                    if info is None:
                        continue
                    self.r.mentions.append(info)
                    reason = sensitive_read_reason(info)
                    if reason:
                        self.s.credentials.append(reason)
                        self.check_exfiltration()

    def resolve(self, word: str, cwds: Cwds) -> list[Any]:
        """PathInfo for each possible working directory (None entries: unknowable)."""
        if UNKNOWN in word:
            return [None]
        value = word
        if _GLOB.search(value):
            prefix = _GLOB.split(value, 1)[0]
            value = prefix.rsplit("/", 1)[0] + "/" if "/" in prefix else "."
            if value == "/":
                value = "/"
        if os.path.isabs(os.path.expanduser(value)):
            return [resolve_path(value, self.ws)]
        if cwds is None:
            return [None]
        return [resolve_path(value, self.ws, cwd) for cwd in sorted(cwds)]

    def effect(
        self, kind: str, word: str, cwds: Cwds, source: str, index: int | None, via_redirect: bool = False
    ) -> None:
        if word in ("-", ""):
            return
        infos = self.resolve(word, cwds)
        seen: set[str] = set()
        for info in infos:
            if info is not None:
                if is_neutral_device(info.lexical) or str(info.path) in seen:
                    continue
                seen.add(str(info.path))
            self.r.effects.append(PathEffect(kind, word, info, source, via_redirect, index))
            if info is not None and kind == "read":
                reason = sensitive_read_reason(info)
                if reason:
                    self.s.credentials.append(reason)
                    self.check_exfiltration()

    def critical(self, word: str, action: str, cwds: Cwds, source: str) -> None:
        if UNKNOWN in word:
            head = word.split(UNKNOWN, 1)[0]
            tail = word.rsplit(UNKNOWN, 1)[-1]
            if not head and tail.strip("/*") == "" and tail:
                self.r.add_ask(HIGH, f"{action} of a path that is / if a variable is empty: {source}")
            return
        glob_all = False
        value = word
        if _GLOB.search(word):
            base, _, last = word.rstrip("/").rpartition("/") if "/" in word.rstrip("/") else ("", "", word)
            if _GLOB.search(base) or last not in _EVERYTHING:
                return
            value = (base or ".") if not word.startswith("/") or base else "/"
            glob_all = True
        for info in self.resolve(value, cwds):
            if info is None:
                continue
            for path in {info.path, info.lexical}:
                reason = critical_reason(path, self.ws)
                if reason:
                    what = f"everything in {reason}" if glob_all else reason
                    self.r.add_hard_deny(f"{action} {word} would destroy {what}: {source}")
                    return
            root = self.ws.root
            for guarded in (root / ".git", root / ".cairn"):
                contains = info.path == guarded or (guarded.is_relative_to(info.path) and info.path != root)
                if contains and action.startswith(("rm", "mv", "find", "chmod", "chown", "rsync", "shred")):
                    self.r.protected.append(f"{action} {word} would remove or alter {guarded.name}: {source}")

    def executes(self, path: str, cwds: Cwds, source: str) -> None:
        if path in self.procsubs:
            info = self.procsubs[path]
            if info.download:
                self.r.add_hard_deny(f"downloads code and runs it: {source}")
            elif info.decoder or info.literal_decoded:
                self.r.add_hard_deny(f"decodes data and runs it as code: {source}")
            return
        for info in self.resolve(path, cwds):
            if info is not None and str(info.path) in self.s.downloaded:
                self.r.add_hard_deny(f"runs {path}, which this command just downloaded: {source}")

    def code_from_stdin(self, ctx: _Ctx, cwds: Cwds, source: str, shell: bool) -> None:
        upstream = ctx.upstream
        if any(s.download for s in upstream):
            self.r.add_hard_deny(f"downloads code and pipes it into an interpreter: {source}")
            return
        if any(s.decoder or s.literal_decoded for s in upstream):
            self.r.add_hard_deny(f"decodes data (base64/hex/escapes) and runs it as code: {source}")
            return
        if any(s.network for s in upstream):
            self.r.add_hard_deny(f"runs code received from a network connection: {source}")
            return
        text = None
        if upstream and upstream[-1].literal is not None:
            text = upstream[-1].literal
        elif ctx.stdin_text is not None and not upstream:
            text = ctx.stdin_text
        if ctx.stdin_file is not None and not upstream:
            self.executes(ctx.stdin_file, cwds, source)
        if text is None:
            return
        if shell:
            self.nested(text, cwds, "code piped into a shell")
        else:
            for found in backstop(text):
                self.r.add_hard_deny(f"code fed to an interpreter contains {found}: {source}")

    def change_dir(self, target: str, cwds: Cwds, source: str, index: int) -> Cwds:
        if UNKNOWN in target or target == "-":
            self.r.cwd_unknown = True
            return None
        value = target or str(home_dir())
        infos = self.resolve(value, cwds)
        if any(i is None for i in infos):
            self.r.cwd_unknown = True
            return None
        for info in infos:
            if not info.inside:
                self.r.effects.append(PathEffect("read", value, info, source, unit_index=index))
        return frozenset(i.path for i in infos)

    # -- words, substitutions, redirections -------------------------------------------------------
    def env_view(self, cwds: Cwds) -> dict[str, list[str]]:
        env: dict[str, list[str]] = {"HOME": [str(home_dir())], "IFS": [" \t\n"]}
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
        if word.kind == "assignment":
            return expand_word(raw, self.env_view(cwds), self.subst_eval, split=False, assignment=True)
        return expand_word(raw, self.env_view(cwds), self.subst_eval)

    def subst_eval(self, inner: str) -> str | None:
        """The output of a tiny ``$(…)`` when it can be known statically."""
        import bashlex

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
        value, _decoded = evaluate_argv_chain(argvs, literal)
        return value

    def visit_substitutions(self, node: Any, cwds: Cwds, ctx: _Ctx) -> list[StageInfo]:
        infos: list[StageInfo] = []
        for part in _walk_parts(node):
            if part.kind in ("commandsubstitution", "processsubstitution"):
                _, info = self.visit(part.command, cwds, _Ctx())
                part._cairn_info = info
                infos.append(info)
        return infos

    def stdin_from(self, redirect: Any, ctx: _Ctx) -> None:
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
            ctx.stdin_file = target.word

    def redirect(self, node: Any, cwds: Cwds, ctx: _Ctx, source: str, info: StageInfo | None = None) -> None:
        kind = node.type
        target = node.output
        if kind in ("<<<", "<<", "<<-"):
            return
        if not hasattr(target, "kind"):
            if kind in (">&", "<&") or target in ("-",):
                return
            return
        if kind in (">&", "<&") and re.fullmatch(r"\d+-?|-", target.word or ""):
            return
        for part in _walk_parts(target):
            if part.kind == "processsubstitution":
                feeds = [info] if info is not None and kind in (">", ">>", ">|", "&>", "&>>", ">&") else []
                self.visit(part.command, cwds, _Ctx(upstream=feeds))
                return
        exp = self.expand(target, cwds)
        values = [v[0] if v else "" for v in exp.values] or [""]
        for value in values:
            if re.match(r"^/dev/(tcp|udp)/", value):
                self.r.add_hard_deny(
                    f"opens a raw network socket with {value} (reverse shell or exfiltration): {_short(source)}"
                )
                self.s.network.append(source)
                self.check_exfiltration()
                continue
            if kind in ("<",):
                self.effect("read", value, cwds, _short(source), None, via_redirect=True)
            elif kind == "<>":
                self.effect("write", value, cwds, _short(source), None, via_redirect=True)
            else:
                self.effect("write", value, cwds, _short(source), None, via_redirect=True)


_SHELL_NAMES = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "rbash", "yash"}


def _walk_parts(node: Any):
    stack = list(getattr(node, "parts", []) or [])
    while stack:
        part = stack.pop(0)
        yield part
        if part.kind in ("commandsubstitution", "processsubstitution"):
            continue  # their commands are visited separately
        stack.extend(getattr(part, "parts", []) or [])


def _union(a: Cwds, b: Cwds) -> Cwds:
    if a is None or b is None:
        return None
    return a | b


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _argv_candidates(exps: list[WordExp]) -> list[list[str]]:
    argvs: list[list[str]] = [[]]
    for exp in exps:
        nxt: list[list[str]] = []
        for argv in argvs:
            for fields in exp.values or [[]]:
                candidate = argv + fields
                if candidate not in nxt:
                    nxt.append(candidate)
        argvs = nxt[:8]
    return argvs
