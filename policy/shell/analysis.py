"""Entry point of the shell classifier: ``analyse(command, workspace)`` -> :class:`ShellAnalysis`.

Fails closed: text over 10,000 characters, more than 50 simple commands, NUL, invisible or
bidirectional characters, or anything bashlex cannot parse after the rewrite leaves a
``fail_closed`` reason (the decision is then at least ask).  Hard-deny checks still run on what
can be seen, and a textual backstop covers what cannot.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import bashlex

from cairn.policy.shell.arith import input_in_arithmetic
from cairn.policy.shell.commands import classify
from cairn.policy.shell.result import ShellAnalysis, StageInfo
from cairn.policy.shell.rewrite import rewrite
from cairn.policy.shell.static import backstop, prescan
from cairn.policy.shell.walker import Shared, Walker
from cairn.tools.workspace import Workspace

__all__ = ["MAX_CHARS", "analyse", "parse_into"]

MAX_CHARS = 10_000
_PARSE_LIMIT = 100_000  # beyond this, only the textual checks run


def analyse(command: str, workspace: Workspace, cwd: Path | None = None) -> ShellAnalysis:
    result = ShellAnalysis(command=command)
    shared = Shared(workspace=workspace, result=result, parse_nested=parse_into)
    for problem in prescan(command):
        result.add_fail(problem)
    if len(command) > MAX_CHARS:
        result.add_fail(f"the command is {len(command):,} characters long (over {MAX_CHARS:,})")
    if not command.strip():
        return result
    if len(command) > _PARSE_LIMIT:
        for found in backstop(command):
            result.add_hard_deny(f"the command contains {found}")
        return result
    start = cwd if cwd is not None else workspace.root
    parse_into(command.replace("\x00", " "), shared, frozenset({Path(start)}), 0, "")
    var = input_in_arithmetic(shared.arith, shared.input_vars)
    if var:
        result.add_fail(
            f"${var} is read from input and then evaluated as arithmetic; "
            "a value such as a[$(cmd)] in that input would run cmd"
        )
    return result


def parse_into(code: str, shared: Shared, cwds: frozenset[Path] | None, depth: int, why: str) -> StageInfo:
    """Rewrite, parse and walk ``code``, adding what is found to ``shared.result``."""
    result = shared.result
    rewritten = rewrite(code)
    shared.arith.extend(rewritten.arith)
    prefix = f"{why}: " if why else ""
    for reason in rewritten.fail:
        result.add_fail(prefix + reason)
    for note in rewritten.notes:
        result.add_ask(result_risk_high(), prefix + note)
    if not rewritten.text.strip():
        return StageInfo(text=code)
    try:
        trees = bashlex.parse(rewritten.text)
    except Exception as exc:  # bashlex raises several types, some NotImplementedError
        result.add_fail(
            f"{prefix}the shell parser cannot analyse this command ({type(exc).__name__}: {exc})"[:300]
        )
        _fallback(code, shared)
        return StageInfo(text=code)
    walker = Walker(shared, rewritten, depth)
    info = StageInfo(text=code)
    for tree in trees:
        cwds, info = walker.visit(tree, cwds, _empty_ctx())
    return info


def result_risk_high():
    from cairn.policy.levels import RiskLevel

    return RiskLevel.HIGH


def _empty_ctx():
    from cairn.policy.shell.walker import Ctx as _Ctx

    return _Ctx()


def _fallback(code: str, shared: Shared) -> None:
    """Without an AST: split on operators, classify each word list, and run the backstop."""
    result = shared.result
    for found in backstop(code):
        result.add_hard_deny(f"the command contains {found}")
    lexer = shlex.shlex(code, posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = code.split()
    argv: list[str] = []
    for token in [*tokens, ";"]:
        if token and all(c in ";&|()<>" for c in token):
            if argv:
                cls = classify(argv)
                for reason in cls.hard_deny:
                    result.add_hard_deny(f"{reason}: {' '.join(argv)}")
                for word, action in cls.critical:
                    if word in ("/", "/*", "~", "~/", "~/*", ".", "*", "./*") or word.rstrip("/") == "":
                        result.add_hard_deny(f"{action} {word}: {' '.join(argv)}")
                from cairn.policy.shell.result import Unit

                text = " ".join(argv)
                result.units.append(
                    Unit(
                        text=text[:160],
                        argv=argv,
                        category=cls.category,
                        risk=cls.risk,
                        reason=cls.reason,
                        forms=[text],
                        deny_forms=[text],
                    )
                )
            argv = []
        else:
            argv.append(token)
