"""Compiling grep patterns for the Python backend, and bounding the time a search may take.

Patterns use ripgrep's syntax, which Python's ``re`` shares except for a few
spellings translated here.  They are checked and analysed with ``re`` and matched
with the ``regex`` package when it is installed (its default mode has ``re``'s
syntax): a search call that backtracks for longer than :data:`PATTERN_TIMEOUT`
raises :class:`PatternTooSlow` instead of freezing the process (``re`` holds the
GIL, so not even a cancel gets through), and the GIL is released while it runs.
Without ``regex``, ``re`` matches, unbounded.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from cairn.tools.file_ops.grep_types import NEWLINE_ERROR, PatternError, PatternTooSlow

#: Longest one search call may run (the pattern is then called too slow).
PATTERN_TIMEOUT = 5.0
_TOO_SLOW = (
    "The pattern is too slow for Python's regex engine (one search ran over {:.0f} s): it backtracks "
    "heavily, as nested repetitions like (a+)+ or (\\w+\\s?)+ do. Simplify it (e.g. drop the outer "
    "repetition) or search for a literal part of it."
)
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
    "space": r" \t\n\r\f\v", "xdigit": "0-9A-Fa-f", "word": r"\w", "punct": r"!-/:-@\[-`{-~",
    "blank": r" \t", "cntrl": r"\x00-\x1f\x7f", "print": r" -~", "graph": "!-~",
}  # fmt: skip


class Compiled:
    """A pattern ready to search file bytes: ``search(data, pos[, endpos])`` -> match or ``None``."""

    def __init__(self, checked: re.Pattern[bytes]) -> None:
        #: A literal every match contains (for a fast ``bytes.find`` pre-check), if there is one.
        self.literal = required_literal(checked)
        engine = _regex_module() if may_backtrack(checked) else None
        if engine is None:
            self.search: Callable[..., Any] = lambda data, pos, endpos=None: checked.search(
                data, pos, len(data) if endpos is None else endpos
            )
            return
        flags = engine.MULTILINE | (engine.IGNORECASE if checked.flags & re.IGNORECASE else 0)
        try:
            rx = engine.compile(checked.pattern, flags)
        except engine.error as exc:
            raise PatternError(f"Invalid regex: {exc}") from None

        def search(data: bytes, pos: int, endpos: int | None = None) -> Any:
            """Like ``re.Pattern.search``, releasing the GIL and bounded in time."""
            try:
                return rx.search(data, pos, endpos, concurrent=True, timeout=PATTERN_TIMEOUT)
            except TimeoutError:
                raise PatternTooSlow(_TOO_SLOW.format(PATTERN_TIMEOUT)) from None

        self.search = search


def _regex_module() -> Any:
    try:
        import regex  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - installed with tiktoken
        return None
    return regex


def compile_pattern(pattern: str, case_insensitive: bool) -> Compiled:
    """Compile a ripgrep-style pattern (the common syntax is shared with Python's ``re``)."""
    if "\n" in pattern or "\\n" in pattern:
        raise PatternError(NEWLINE_ERROR)
    source = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)  # named groups: (?<name>...) -> (?P<name>...)
    source = re.sub(r"\[:(\w+):\]", lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), source)
    source = source.replace(r"\z", r"\Z")
    flags = re.MULTILINE | (re.IGNORECASE if case_insensitive else 0)
    try:
        checked = re.compile(source.encode("utf-8", "surrogateescape"), flags)
    except re.error as exc:
        raise PatternError(f"Invalid regex: {exc}") from None
    return Compiled(checked)


def may_backtrack(pattern: re.Pattern[bytes]) -> bool:
    r"""Whether the pattern could backtrack catastrophically: more than one unbounded
    repetition (nested like ``(a+)+`` or in sequence like ``\w+\w+x``) or a repetition of
    an alternation. Other patterns run on ``re``, which is faster per call; these run on
    ``regex`` with a time budget. Unknown parser layouts count as risky."""
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
        from re._constants import BRANCH, MAX_REPEAT, MAXREPEAT, MIN_REPEAT  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - older/newer layouts
        return True
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return True
    unbounded = 0
    risky = False

    def visit(items, inside_repeat: bool) -> None:
        nonlocal unbounded, risky
        for op, arg in items:
            if op in (MAX_REPEAT, MIN_REPEAT):
                _low, high, body = arg
                if high == MAXREPEAT or high > 64:
                    unbounded += 1
                visit(body, True)
            elif op is BRANCH:
                if inside_repeat:
                    risky = True
                for alternative in arg[1]:
                    visit(alternative, inside_repeat)
            elif isinstance(arg, (list, tuple)):
                for part in arg:
                    if isinstance(part, sre_parse.SubPattern):
                        visit(part, inside_repeat)

    visit(parsed, False)
    return risky or unbounded > 1


def required_literal(pattern: re.Pattern[bytes]) -> bytes | None:
    """The longest literal every match must contain, for a fast ``bytes.find`` pre-check."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
        from re._constants import LITERAL, SUBPATTERN  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - older/newer layouts
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:
        return None
    best: list[int] = []
    run: list[int] = []

    def visit(items) -> None:
        nonlocal best, run
        for op, arg in items:
            if op is LITERAL:
                run.append(arg)
            elif op is SUBPATTERN and not arg[1] and not arg[2]:  # plain group, no inline flags
                visit(arg[3])
            else:
                best = max(best, run, key=len)
                run = []

    visit(parsed)
    best = max(best, run, key=len)
    return bytes(best) if len(best) >= 2 else None
