"""Unified diffs of text edits, for approval prompts and metadata (never for the model)."""

from __future__ import annotations

import difflib

from tools.file_ops.textio import split_lines
from tools.output import truncate_middle

#: Longest diff kept in metadata; a rewrite of a huge file is cut in the middle.
MAX_DIFF_CHARS = 200_000


def unified_diff(before: str | None, after: str, display_path: str, *, context: int = 3) -> str:
    """``diff -u`` style text; ``before=None`` means the file is new. Empty string: no change."""
    old = split_lines(before) if before else []
    new = split_lines(after)
    fromfile = "/dev/null" if before is None else f"a/{display_path}"
    lines = difflib.unified_diff(old, new, fromfile, f"b/{display_path}", n=context, lineterm="")
    return truncate_middle("\n".join(lines), MAX_DIFF_CHARS)


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
