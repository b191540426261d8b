"""What a grep backend returns, and the query it is given.

Both backends (ripgrep and pure Python) produce the same thing: per file, the
base-relative path as bytes, the number of matching lines and of result lines
(matches and context), and in content mode the first result lines as
:class:`Record` objects, ready to print.  Only the first ``Query.max_rows``
result lines in path order are kept (see :mod:`cairn.tools.file_ops.grep_collect`),
so a search with millions of matches holds a bounded amount of text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from cairn.errors import CairnError

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
    #: Result lines kept for content mode (the first ones in path order); ``None``: all.
    max_rows: int | None = None


class Record(NamedTuple):
    """One result line of content mode."""

    line: int
    column: int  # 1-based byte column of the first match; 0 for a context line
    text: str  # as shown: decoded, a long line cut around the match

    @property
    def is_match(self) -> bool:
        return self.column > 0


@dataclass
class FileResult:
    path: bytes  # relative to the scope's base
    count: int = 0  # matching lines
    rows: int = 0  # result lines (matches and context), content mode
    records: list[Record] = field(default_factory=list)  # the first result lines, content mode


class PatternError(CairnError, ValueError):
    """The pattern is not a valid regular expression (message is for the model)."""


class PatternTooSlow(CairnError):
    """The Python backend gave up on a pattern that backtracks too much (message is for the model)."""


NEWLINE_ERROR = (
    "grep matches within single lines: the pattern cannot match a line break (\\n). "
    "Search for one line of the text instead."
)
