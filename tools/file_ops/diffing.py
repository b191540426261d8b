"""Unified diffs of text edits, for approval prompts and metadata (never for the model)."""

from __future__ import annotations

import difflib

from cairn.tools.file_ops.textio import split_lines
from cairn.tools.output import truncate_middle

#: Longest diff kept in metadata; a rewrite of a huge file is cut in the middle.
MAX_DIFF_CHARS = 200_000


def unified_diff_stats(
    before: str | None, after: str, display_path: str, *, context: int = 3
) -> tuple[str, int, int]:
    """(diff text, added lines, removed lines); the counts are taken before the text is cut."""
    old = split_lines(before) if before else []
    new = split_lines(after)
    fromfile = "/dev/null" if before is None else f"a/{display_path}"
    lines = list(difflib.unified_diff(old, new, fromfile, f"b/{display_path}", n=context, lineterm=""))
    added, removed = _count(lines[2:])  # lines[:2] are the ---/+++ file header
    return truncate_middle("\n".join(lines), MAX_DIFF_CHARS), added, removed


def unified_diff(before: str | None, after: str, display_path: str, *, context: int = 3) -> str:
    """``diff -u`` style text; ``before=None`` means the file is new. Empty string: no change."""
    return unified_diff_stats(before, after, display_path, context=context)[0]


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a single-file unified diff's text.

    Lines before the first hunk (``@@``) are the header; inside hunks a removed line
    ``-- comment`` reads ``--- comment`` and must still count.
    """
    lines = diff.splitlines()
    first_hunk = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    return _count(lines[first_hunk:])


def _count(hunk_lines: list[str]) -> tuple[int, int]:
    added = removed = 0
    for line in hunk_lines:
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return added, removed
