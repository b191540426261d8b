"""Turning grep results into the text the model reads: ``path:line:text`` / ``path-line-text``."""

from __future__ import annotations

import re
from collections.abc import Callable

from tools.file_ops.fmt import cut_line, plural
from tools.file_ops.grep_types import FileResult, Query, record_parts

#: Longest line shown; longer ones are cut around their first match.
MAX_LINE_CHARS = 500


def _focus(query: Query) -> Callable[[str], int]:
    """Where the first match starts in a line (to cut long lines around it)."""
    try:
        rx = re.compile(query.pattern, re.IGNORECASE if query.case_insensitive else 0)
    except re.error:
        return lambda _line: 0

    def find(line: str) -> int:
        m = rx.search(line)
        return m.start() if m else 0

    return find


def format_results(
    results: list[FileResult], query: Query, path_of: Callable[[bytes], str], head_limit: int
) -> tuple[str, dict[str, int | bool]]:
    """(text, stats). ``head_limit`` caps lines (content), files or count rows; 0 = no cap."""
    files = len(results)
    matches = sum(r.count for r in results)
    limit = head_limit or None
    if query.mode == "files_with_matches":
        rows = [path_of(r.path) for r in results[:limit]]
        head = f"Found {plural(files, 'file')} with matches."
        shown, total, unit = len(rows), files, "files"
    elif query.mode == "count":
        rows = [f"{path_of(r.path)}:{r.count}" for r in results[:limit]]
        head = f"Found {plural(matches, 'matching line')} in {plural(files, 'file')}."
        shown, total, unit = len(rows), files, "files"
    else:
        rows, total = _content_rows(results, query, path_of, limit)
        shown = sum(1 for r in rows if r != "--")
        head = f"Found {plural(matches, 'matching line')} in {plural(files, 'file')}."
        unit = "lines"
    parts = [head, *rows]
    truncated = shown < total
    if truncated:
        parts.append(
            f"[Showing the first {shown:,} of {total:,} {unit}. Narrow the search (path, glob, a more "
            f"specific pattern) or raise head_limit.]"
        )
    stats = {"files": files, "matches": matches, "shown": shown, "truncated": truncated}
    return "\n".join(parts), stats


def _content_rows(
    results: list[FileResult], query: Query, path_of: Callable[[bytes], str], limit: int | None
) -> tuple[list[str], int]:
    total = sum(len(r.records) for r in results)
    focus = _focus(query)
    rows: list[str] = []
    shown = 0
    for result in results:
        if limit is not None and shown >= limit:
            break
        path = path_of(result.path)
        previous = None
        for record in result.records:
            if limit is not None and shown >= limit:
                break
            line_no, is_match, raw = record_parts(record)
            if query.context and rows and (previous is None or line_no != previous + 1):
                rows.append("--")
            previous = line_no
            text = raw.decode("utf-8", "replace")
            if len(text) > MAX_LINE_CHARS:
                text = cut_line(text, MAX_LINE_CHARS, focus=focus(text) if is_match else 0)
            sep = ":" if is_match else "-"
            rows.append(f"{path}{sep}{line_no}{sep}{text}")
            shown += 1
    return rows, total
