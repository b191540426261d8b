"""What a grep backend returns, and the query it is given.

Both backends (ripgrep and pure Python) produce the same thing: per file, the
base-relative path as bytes, the number of matching lines, and in content
mode the lines as ripgrep prints them (``b"12:text"`` for a match,
``b"13-text"`` for context).  One formatter turns either into the tool output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

OutputMode = Literal["content", "files_with_matches", "count"]


@dataclass(frozen=True)
class Query:
    pattern: str
    mode: OutputMode = "content"
    context: int = 0
    case_insensitive: bool = False
    #: Accepts a path relative to the search root (the ``glob`` argument); ``None``: all files.
    accept: Callable[[str], bool] | None = None
    #: File-name globs ripgrep may pre-filter with (together a superset of ``accept``).
    rg_names: tuple[str, ...] = ()


@dataclass
class FileResult:
    path: bytes  # relative to the scope's base
    count: int  # matching lines
    records: list[bytes] = field(default_factory=list)  # content mode only


class PatternError(ValueError):
    """The pattern is not a valid regular expression (message is for the model)."""


def record_parts(record: bytes) -> tuple[int, bool, bytes]:
    """``b"12:text"`` -> ``(12, True, b"text")``; ``b"13-text"`` -> ``(13, False, b"text")``."""
    i = 0
    while record[i : i + 1].isdigit():
        i += 1
    text = record[i + 1 :]
    if text.endswith(b"\r"):
        text = text[:-1]
    return int(record[:i]), record[i : i + 1] == b":", text


def count_matching(records: list[bytes]) -> int:
    return sum(1 for r in records if record_parts(r)[1])


NEWLINE_ERROR = (
    "grep matches within single lines: the pattern cannot match a line break (\\n). "
    "Search for one line of the text instead."
)
