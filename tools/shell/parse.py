"""Which programs a command runs, for the display ("Running: git status (read-only)").

Best effort: bashlex parses most commands and every simple command (pipeline stages,
``&&`` lists, command substitutions) contributes its program name.  When bashlex
cannot parse (``[[ ]]``, ``case``), a plain split on shell operators stands in.
Read-only-ness is *not* decided here: the policy decides and the tool reads
``ToolContext.risk``.
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_OPERATORS = re.compile(r"\|\||&&|[|;&\n()`]|\$\(")
#: A segment starting with one of these names no program (a test, a case header).
_SKIP_SEGMENT = frozenset({"[[", "case", "function", "(("})
_KEYWORDS = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "function",
        "select",
        "time",
        "{",
        "}",
        "!",
        "[[",
        "]]",
    ]
)


def programs(command: str) -> list[str]:
    """Names of the programs ``command`` runs, in order, without repeats."""
    try:
        found = _from_bashlex(command)
    except Exception:  # bashlex raises assorted errors on syntax it does not support
        found = _from_split(command)
    seen: dict[str, None] = {}
    for name in found:
        if name and name not in _KEYWORDS:
            seen.setdefault(os.path.basename(name) if "/" in name else name, None)
    return list(seen)


def _from_bashlex(command: str) -> list[str]:
    import bashlex

    names: list[str] = []

    class Visitor(bashlex.ast.nodevisitor):
        def visitcommand(self, node: Any, parts: list[Any]) -> None:
            for part in parts:
                if part.kind == "word":
                    names.append(part.word)
                    return
                if part.kind not in ("assignment", "redirect"):
                    return

    for tree in bashlex.parse(command):
        Visitor().visit(tree)
    return names


def _from_split(command: str) -> list[str]:
    names: list[str] = []
    for segment in _OPERATORS.split(command):
        try:
            words = shlex.split(segment, comments=True)
        except ValueError:
            words = segment.split()
        for word in words:
            if word in _SKIP_SEGMENT:
                break
            if _ASSIGNMENT.match(word) or word in _KEYWORDS:
                continue
            names.append(word)
            break
    return names


def short_command(command: str, limit: int = 100) -> str:
    """First line of ``command``, cut to ``limit`` characters, for one-line displays."""
    lines = command.strip().splitlines() or [""]
    first = lines[0]
    if len(lines) > 1:
        first += " …"
    return first if len(first) <= limit else first[: limit - 1] + "…"
