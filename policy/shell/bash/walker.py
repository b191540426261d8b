"""Walking the bashlex AST: every simple command, pipeline stage, substitution and redirection.

The walker keeps a little state while it goes: the possible working directories (``cd sub &&
ls`` lists ``sub``; a ``cd`` that may fail leaves both), literal variable assignments (so
``a=rm; $a -rf /`` is seen as ``rm -rf /``), defined functions, and files the command downloads
(so ``curl -o x.sh …; sh x.sh`` is caught).  Per simple command it expands the words, asks the
command table, unwraps wrappers, analyses code passed as strings, and records units and path
effects in the shared :class:`ShellAnalysis`.
"""

from __future__ import annotations

from typing import Any

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.bash.effects import EffectsMixin
from cairn.policy.shell.bash.process import ProcessMixin
from cairn.policy.shell.bash.state import Ctx, Cwds, Shared, argv_candidates, short, union
from cairn.policy.shell.bash.static import backstop
from cairn.policy.shell.bash.wordctx import WordsMixin
from cairn.policy.shell.bash.words import UNKNOWN
from cairn.policy.shell.bash.wordtypes import capped
from cairn.policy.shell.commands import classify, command_name
from cairn.policy.shell.resources import bounded
from cairn.policy.shell.result import StageInfo

__all__ = ["Ctx", "Shared", "Walker"]

HIGH = RiskLevel.HIGH


class Walker(EffectsMixin, WordsMixin, ProcessMixin):
    def nested(self, code: str, cwds: Cwds, why: str) -> StageInfo:
        """Analyse shell code run by bash -c, eval, a here-doc to a shell, ``echo … | sh``."""
        if UNKNOWN in code:
            self.r.add_ask(HIGH, f"{why} is only known at run time")
            code = code.replace(UNKNOWN, "__cairn_unknown__")
        if self.depth >= 4:
            self.r.add_fail(f"code nested more than 4 levels deep ({why})")
            for found in backstop(code):
                self.r.add_hard_deny(f"{why} contains {found}")
            return StageInfo(text=code)
        return self.s.parse_nested(code, self.s, cwds, self.depth + 1, why)

    def visit(self, node: Any, cwds: Cwds, ctx: Ctx) -> tuple[Cwds, StageInfo]:
        kind = node.kind
        if kind == "list":
            return self.visit_list(node, cwds)
        if kind == "pipeline":
            return self.visit_pipeline(node, cwds)
        if kind == "command":
            return self.visit_command(node, cwds, ctx)
        if kind == "compound":
            return self.visit_compound(node, cwds, ctx)
        if kind in ("while", "until", "for") and _has_background(node):
            self.r.add_hard_deny(
                f"starts background jobs in a loop (it can fill the process table): {short(self.text(node))}"
            )
        if kind in ("if", "while", "until"):
            return self.visit_branches(node, cwds)
        if kind == "for":
            return self.visit_for(node, cwds)
        if kind == "function":
            return self.visit_function(node, cwds)
        return cwds, StageInfo(text=self.text(node))

    def visit_list(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        cur: Cwds = cwds
        last = StageInfo(text=self.text(node))
        parts = node.parts
        for k, part in enumerate(parts):
            if part.kind == "operator":
                continue
            before = cur
            succ, last = self.visit(part, cur, Ctx())
            nxt = parts[k + 1] if k + 1 < len(parts) else None
            if nxt is not None and nxt.kind == "operator" and nxt.op == "&&":
                cur = succ
            else:
                cur = union(before, succ)
        return cur, last

    def visit_pipeline(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        stages = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
        upstream: list[StageInfo] = []
        info = StageInfo(text=self.text(node))
        for stage in stages:
            _, info = self.visit(stage, cwds, Ctx(upstream=list(upstream)))
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

    def visit_compound(self, node: Any, cwds: Cwds, ctx: Ctx) -> tuple[Cwds, StageInfo]:
        items = [p for p in node.list if p.kind != "reservedword"]
        subshell = bool(node.list) and node.list[0].kind == "reservedword" and node.list[0].word == "("
        cur = cwds
        info = StageInfo(text=self.text(node))
        infos: list[StageInfo] = []
        for item in items:
            cur, info = self.visit(item, cur, ctx if len(items) == 1 else Ctx())
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
            succ, _ = self.visit(part, cur, Ctx())
            cur = union(cur, succ)
        for redirect in getattr(node, "redirects", []) or []:
            self.redirect(redirect, cwds, Ctx(), self.text(node))
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
                self.visit_substitutions(part, cwds, Ctx())
                exp = self.expand(part, cwds)
                for candidate in exp.values:
                    values.extend(candidate)
                continue
            body.append(part)
        if name:
            self.assign(name, capped(values or [UNKNOWN]))
        cur = cwds
        for part in body:
            succ, _ = self.visit(part, cur, Ctx())
            cur = union(cur, succ)
        return cur, StageInfo(text=self.text(node))

    def visit_function(self, node: Any, cwds: Cwds) -> tuple[Cwds, StageInfo]:
        name_node = next(p for p in node.parts if p.kind == "word")
        name = name_node.word
        self.s.functions.add(name)
        body = node.parts[-1]
        before = len(self.r.units)
        outer = self.s.env.get("FUNCNAME")
        self.s.env["FUNCNAME"] = [name]  # "$FUNCNAME" in the body is the function itself
        self.visit(body, cwds, Ctx())
        if outer is None:
            self.s.env.pop("FUNCNAME", None)
        else:
            self.s.env["FUNCNAME"] = outer
        called = {u.argv[0] for u in self.r.units[before:] if u.argv}
        self.s.calls[name] = called
        if _reaches(name, self.s.calls):
            self.r.add_hard_deny(
                f"the function {name} calls itself (recursion without a bound; with & or | a fork bomb)"
            )
        return cwds, StageInfo(text=self.text(node))

    def visit_command(self, node: Any, cwds: Cwds, ctx: Ctx) -> tuple[Cwds, StageInfo]:
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
        for exp in exps:
            if exp.evaluates:
                self.r.add_fail(f"{exp.evaluates} (a value such as a[$(cmd)] would run cmd): {short(source)}")
        argvs = argv_candidates(exps)
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
            succ = after if k == 0 else union(succ, after)
            info = self.stage_info(cls, info, self.r.effects[before_effects:])
            name = command_name(argv[0])[0]
            if (
                name == "yes"
                or (name == "seq" and "inf" in (a.lower().lstrip("+") for a in argv[1:]))
                or (self.endless_input(cls, ctx) and not bounded(name, argv[1:]))
            ):
                info.endless = True
            for unit in self.r.units[before_units:]:
                unit.deny_forms.append(" ".join(source.split()))
        tainted = [
            i for infos in subst_infos.values() for i in infos if i.download or i.decoder or i.literal_decoded
        ]
        if runs_code and tainted:
            what = "downloaded" if any(i.download for i in tainted) else "decoded"
            self.r.add_hard_deny(f"runs code that is {what} at run time: {short(source)}")
        for redirect in redirects:
            self.redirect(redirect, cwds, ctx, source, info)
        return succ, info


def _has_background(node: Any) -> bool:
    """Whether ``node`` runs something in the background (``&``) anywhere inside it."""
    stack = [node]
    while stack:
        part = stack.pop()
        if part.kind == "operator" and getattr(part, "op", "") == "&":
            return True
        stack.extend(getattr(part, "parts", None) or [])
        stack.extend(getattr(part, "list", None) or [])
    return False


def _reaches(name: str, calls: dict[str, set[str]]) -> bool:
    """Whether function ``name`` can call itself, directly or through other functions."""
    seen: set[str] = set()
    todo = list(calls.get(name, ()))
    while todo:
        callee = todo.pop()
        if callee == name:
            return True
        if callee not in seen:
            seen.add(callee)
            todo.extend(calls.get(callee, ()))
    return False
