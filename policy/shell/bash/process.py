"""Walker mixin: recording one simple command as a unit and following what it runs."""

from __future__ import annotations

import os
from pathlib import Path

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.bash.arith import arith_texts, dynamic_name, input_names, subscript_code
from cairn.policy.shell.bash.state import MAX_UNITS, Base, Ctx, Cwds, short
from cairn.policy.shell.bash.static import backstop
from cairn.policy.shell.bash.words import UNKNOWN
from cairn.policy.shell.cmdtables import NEUTRAL, SHELLS
from cairn.policy.shell.commands import classify, command_name
from cairn.policy.shell.envvars import dangerous_env, harmless_env
from cairn.policy.shell.gitrepo import shipped_repo
from cairn.policy.shell.resources import HOLDS_ALL, reads_endless
from cairn.policy.shell.result import Classified, PathEffect, StageInfo, Unit
from cairn.policy.shell.treescan import follows_links
from cairn.policy.vocab import words

__all__ = ["ProcessMixin"]

LOW, HIGH = RiskLevel.LOW, RiskLevel.HIGH
#: Read-only commands that an option turns into a program runner (rg --pre, sed e, git -c ...).
_READ_ONLY_FAMILY = words(
    "rg grep egrep fgrep ag ack sed gsed awk gawk mawk nawk sort git less man tar zip bat find fd fdfind"
)
#: Builtins and printers whose options cannot read, write or run anything: a word only known at
#: run time is judged where it is used, not here (cd, export and the other "silent" builtins too;
#: ``let`` evaluates its words as arithmetic).
_OPTIONS_HARMLESS = NEUTRAL - {"let"} | {"echo"}


class ProcessMixin(Base):
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
        self, argv: list[str], cls: Classified, cwds: Cwds, ctx: Ctx, parent: int | None, source: str
    ) -> Cwds:
        """Record one (possibly wrapped) command and follow what it runs."""
        self.s.units += 1
        if self.s.units == MAX_UNITS + 1:
            self.r.add_fail(f"more than {MAX_UNITS} simple commands")
        name, _ = command_name(argv[0])
        if name in self.s.functions and argv[0] == name:
            cls = Classified("neutral", LOW, f"calls the shell function {name} defined above")
        text = " ".join(argv).replace(UNKNOWN, "…")
        unit = Unit(
            text=short(text),
            argv=argv,
            category=cls.category,
            risk=cls.risk,
            reason=cls.reason,
            forms=[text],
            deny_forms=[text, " ".join([name, *argv[1:]])],
            parent=parent,
            auto_edit=cls.auto_edit,
            destructive=cls.destructive,
            escalated=cls.escalates or (cls.category == "exec" and name in _READ_ONLY_FAMILY),
        )
        self.r.units.append(unit)
        index = len(self.r.units) - 1
        where = short(source if parent is None else text)
        for reason in cls.hard_deny:
            self.r.add_hard_deny(f"{reason}: {where}")
        self.mentions(argv, cwds)
        self.argument_checks(name, argv, cls, cwds, where)
        self.path_effects(name, argv, cls, cwds, ctx, where, index)
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
            self.code_from_stdin(ctx, cwds, where, shell=name in SHELLS)
        for code in cls.nested_code:
            self.nested(code, cwds, f"code run by {name}")
        succ = cwds
        if cls.cd is not None:
            succ = self.change_dir(cls.cd, cwds, where, index)
        if cls.inner:
            self.follow_inner(cls, name, cwds, ctx, index, source)
        return succ

    def argument_checks(self, name: str, argv: list[str], cls: Classified, cwds: Cwds, where: str) -> None:
        """Unknown words, git's repository, hidden code in arguments, network use, environment."""
        if cls.risk == LOW and _options_matter(name, cls, argv) and any(UNKNOWN in a for a in argv[1:]):
            self.r.add_ask(
                HIGH,
                f"a word only known at run time stands where an option or a path can go: {where}",
            )
        if name == "git":
            self.git_repository(argv[1:], cwds, where)
        hidden = subscript_code(name, argv[1:]) or dynamic_name(name, argv[1:], UNKNOWN)
        if hidden:
            self.r.add_fail(f"{hidden}: {where}")
        self.s.input_vars.update(input_names(name, argv[1:]))
        self.s.arith.extend(arith_texts(name, argv[1:]))
        if cls.network:
            self.s.network.append(where)
            self.check_exfiltration()
        if self.s.exported and cls.category != "silent" and name not in _OPTIONS_HARMLESS:
            self.r.add_ask(
                HIGH,
                f"{self.s.exported[0]} is exported to the commands after it; only locale, time zone, "
                f"colour and terminal variables may be set for a command without asking: {where}",
            )
        self.environment(name, argv, cls, where)

    def path_effects(
        self, name: str, argv: list[str], cls: Classified, cwds: Cwds, ctx: Ctx, where: str, index: int
    ) -> None:
        """The paths the command reads and writes (placeholders filled in), endless input,
        followed symlinks, xargs operands and the destructive targets."""
        reads, writes = list(cls.reads), list(cls.writes)
        if ctx.placeholder:
            reads = [r for r in reads if ctx.placeholder not in r]
            writes = [w for w in writes if ctx.placeholder not in w]
            if any(ctx.placeholder in a for a in argv[1:]):
                if cls.writes or cls.category == "write":
                    writes.extend(ctx.placeholder_paths)
                else:
                    reads.extend(ctx.placeholder_paths)
        if self.endless_input(cls, ctx) and name in HOLDS_ALL:
            self.r.add_hard_deny(f"{name} keeps all of an endless input (it exhausts memory): {where}")
        for word in reads:
            self.effect("read", word, cwds, where, index)
        if follows_links(name, argv[1:]):
            self.followed_links(name, [w for w in reads if UNKNOWN not in w], cwds, where)
        for word in writes:
            self.effect("write", word, cwds, where, index)
        if ctx.extra_operands and cls.category not in ("neutral", "silent"):
            upstream = ctx.upstream[-1] if ctx.upstream else None
            if not (upstream and upstream.lists_inside):
                kind = "write" if cls.category == "write" else "read"
                self.r.effects.append(
                    PathEffect(kind, "(paths from xargs input)", None, where, unit_index=index)
                )
        if ctx.placeholder_critical and cls.destructive and any(ctx.placeholder in a for a in argv[1:]):
            for path in ctx.placeholder_paths:  # find . -exec rm {} + reaches every file
                self.critical(path, f"find -exec {name}", cwds, where)
        for word, action in cls.critical:
            if ctx.placeholder and ctx.placeholder in word:
                for path in ctx.placeholder_paths if ctx.placeholder_critical else []:
                    self.critical(path, action, cwds, where)
                continue
            self.critical(word, action, cwds, where)

    def endless_input(self, cls: Classified, ctx: Ctx) -> bool:
        """Whether the command reads /dev/zero-like devices or a stage that never ends."""
        upstream = ctx.upstream[-1] if ctx.upstream else None
        fed = [self.procsubs[w] for w in cls.reads if w in self.procsubs]  # sort <(cat /dev/zero)
        return (
            reads_endless(cls.reads, ctx.stdin_file if upstream is None else None)
            or bool(upstream and upstream.endless)
            or any(info.endless for info in fed)
        )

    def environment(self, name: str, argv: list[str], cls: Classified, where: str) -> None:
        """``env NAME=v cmd`` asks unless NAME is harmless; ``export``/``declare -x`` of such a name
        asks at the next command (alone it changes nothing: exports end with the call)."""
        exported = name == "export" or (
            name in ("declare", "typeset", "local", "readonly")
            and any(a.startswith("-") and "x" in a for a in argv[1:])
        )
        for item in cls.assignments:
            var, _, value = item.partition("=")
            if name == "env" and not harmless_env(var, value):
                self.r.add_ask(
                    HIGH,
                    f"sets {var} for the command; only locale, time zone, colour and terminal "
                    f"variables may be set for a command without asking: {where}",
                )
            elif dangerous_env(var, value):
                self.r.add_ask(HIGH, f"sets {var}, which can make commands run other code: {where}")
            elif exported and not harmless_env(var, value):
                self.s.exported.append(var)

    def git_repository(self, args: list[str], cwds: Cwds, where: str) -> None:
        """git run in a repository the workspace ships asks (its config can run programs)."""
        dirs = [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-C"]
        starts: list[Path | None] = []
        if cwds is None:
            starts = [None]
        elif not dirs:
            starts = list(cwds)
        else:
            for cwd in sorted(cwds):
                base = cwd
                for d in dirs:
                    if UNKNOWN in d:
                        base = None
                        break
                    base = Path(os.path.normpath(os.path.join(base, os.path.expanduser(d))))
                starts.append(base)
        for start in starts:
            if start is None:
                self.r.add_ask(HIGH, f"git runs in a directory only known at run time: {where}")
                return
            key = str(start)
            if key not in self.s.git_repos:
                self.s.git_repos[key] = shipped_repo(start, self.ws.root)
            why = self.s.git_repos[key]
            if why:
                self.r.add_ask(
                    HIGH,
                    f"git would use a repository the workspace ships ({why}); its config can run "
                    f"programs (core.fsmonitor, hooks, filters, aliases): {where}",
                )
                return

    def follow_inner(self, cls: Classified, name: str, cwds: Cwds, ctx: Ctx, index: int, source: str) -> None:
        """Classify the command a wrapper runs (with xargs input spelled out when it is known)."""
        assert cls.inner is not None
        inner_ctx = Ctx(
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


def _options_matter(name: str, cls: Classified, argv: list[str]) -> bool:
    """Whether an unknown word in ``argv`` could be an option that changes what runs or is read
    (``printf -v a[$(cmd)]``: only printf's first word can be ``-v``)."""
    if cls.category == "silent" or name in _OPTIONS_HARMLESS:
        return False
    if name == "printf":
        return len(argv) > 1 and UNKNOWN in argv[1]
    return True
