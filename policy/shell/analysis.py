"""Entry point of the shell classifier: ``analyse(command, workspace)`` -> :class:`ShellAnalysis`.

Fails closed: text over 10,000 characters, more than 50 simple commands, NUL, invisible or
bidirectional characters, or anything bashlex cannot parse after the rewrite leaves a
``fail_closed`` reason (the decision is then at least ask).  Hard-deny checks still run on what
can be seen, and a textual backstop covers what cannot.
"""

from __future__ import annotations

import re
from pathlib import Path

import bashlex

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.bash.arith import input_in_arithmetic
from cairn.policy.shell.bash.rewrite import rewrite
from cairn.policy.shell.bash.state import MAX_UNITS
from cairn.policy.shell.bash.static import backstop, prescan
from cairn.policy.shell.bash.walker import Ctx, Shared, Walker
from cairn.policy.shell.commands import classify
from cairn.policy.shell.result import ShellAnalysis, StageInfo, Unit
from cairn.tools.workspace import Workspace

__all__ = ["MAX_CHARS", "analyse", "parse_into"]

MAX_CHARS = 10_000


def analyse(command: str, workspace: Workspace, cwd: Path | None = None) -> ShellAnalysis:
    result = ShellAnalysis(command=command)
    shared = Shared(workspace=workspace, result=result, parse_nested=parse_into)
    for problem in prescan(command):
        result.add_fail(problem)
    if not command.strip():
        return result
    if len(command) > MAX_CHARS:
        # Fail closed before the (costly) parse: only the textual hard-deny checks run.
        result.add_fail(f"the command is {len(command):,} characters long (over {MAX_CHARS:,})")
        _textual_only(command, result)
        return result
    separators = _quick_separators(command)
    if separators > 2 * MAX_UNITS:
        # Far over the limit: fail closed on a linear, C-speed count (quotes respected),
        # before the scanner and the parser (issue 17: a 10 KB chain costs milliseconds).
        result.add_fail(f"more than {MAX_UNITS} simple commands ({separators} command separators)")
        _fallback(command, shared)  # word lists only: hard-deny and deny rules still apply
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
    if depth == 0 and rewritten.commands > MAX_UNITS:
        # Fail closed before the parse: the walker's own count would only confirm it, later.
        result.add_fail(f"more than {MAX_UNITS} simple commands ({rewritten.commands})")
        _fallback(code, shared)  # word lists only: hard-deny and deny rules still apply
        return StageInfo(text=code)
    shared.arith.extend(rewritten.arith)
    prefix = f"{why}: " if why else ""
    for reason in rewritten.fail:
        result.add_fail(prefix + reason)
    for note in rewritten.notes:
        result.add_ask(RiskLevel.HIGH, prefix + note)
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
        cwds, info = walker.visit(tree, cwds, Ctx())
    return info


_TOKENS = re.compile(r"""'[^']*'|"(?:\\.|[^"\\])*"|\\.|(&&|\|\||[;&|\n])|[^'"\\;&|\n]+""", re.DOTALL)


def _quick_separators(command: str) -> int:
    """Command separators outside quotes (``;``, ``&&``, ``||``, ``|``, ``&``, newlines).
    Here-documents make it unreliable (their bodies are data), so they count as 0."""
    if "<<" in command:
        return 0
    return sum(1 for m in _TOKENS.finditer(command) if m.group(1))


_WORD_PIECES = re.compile(
    r"""'([^']*)'?|"((?:\\.|[^"\\])*)"?|\\(.)|(&&|\|\||[;&|()<>\n])|(\s+)|([^\s'"\\;&|()<>]+)""",
    re.DOTALL,
)


def _fast_tokens(code: str) -> list[str]:
    """Words (quotes removed) and operators, at regex speed: enough for the fallback's word lists."""
    tokens: list[str] = []
    word: list[str] | None = None
    for m in _WORD_PIECES.finditer(code):
        single, double, escaped, op, space, plain = m.groups()
        if op is not None or space is not None:
            if word is not None:
                tokens.append("".join(word))
                word = None
            if op is not None:
                tokens.append(op if op != "\n" else ";")
            continue
        piece = single if single is not None else double if double is not None else escaped or plain or ""
        word = (word or []) + [piece]
    if word is not None:
        tokens.append("".join(word))
    return tokens


def _textual_only(code: str, result: ShellAnalysis) -> None:
    for found in backstop(code):
        result.add_hard_deny(f"the command contains {found}")


def _fallback(code: str, shared: Shared) -> None:
    """Without an AST: split on operators, classify each word list, and run the backstop."""
    result = shared.result
    _textual_only(code, result)
    tokens = _fast_tokens(code)
    argv: list[str] = []
    seen: set[str] = set()  # a repeated command gives the same findings: judged once
    for token in [*tokens, ";"]:
        if token and all(c in ";&|()<>" for c in token):
            if argv and " ".join(argv) not in seen:
                seen.add(" ".join(argv))
                cls = classify(argv)
                for reason in cls.hard_deny:
                    result.add_hard_deny(f"{reason}: {' '.join(argv)}")
                for word, action in cls.critical:
                    if word in ("/", "/*", "~", "~/", "~/*", ".", "*", "./*") or word.rstrip("/") == "":
                        result.add_hard_deny(f"{action} {word}: {' '.join(argv)}")
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
