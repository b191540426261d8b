"""Turning grep results into the text the model reads: ``path:line:text`` / ``path-line-text``."""

from __future__ import annotations

from collections.abc import Callable

from cairn.tools.file_ops.fmt import cut_line, plural
from cairn.tools.file_ops.grep_types import FileResult, Query

#: Longest line shown; longer ones are cut around their first match.
MAX_LINE_CHARS = 500
#: Longest line read whole (ripgrep's ``--max-columns``); of longer ones only this many bytes are
#: read, which bounds the memory one huge line (minified code, a data dump) can take.
PREVIEW_BYTES = 1 << 20
#: Result lines kept when head_limit is 0 ("no limit"): far more than the output can show.
MAX_KEPT_ROWS = 10_000


def line_text(raw: bytes, column: int = 0, *, longer: bool = False) -> str:
    """A result line as shown: decoded, and when long cut around the first match.

    ``column`` is the match's 1-based byte column as the backends report it (0: a
    context line, cut from its start), so no regex runs here; ``longer`` says ``raw``
    is only the first :data:`PREVIEW_BYTES` of the line.
    """
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    text = raw.decode("utf-8", "replace")
    if len(text) <= MAX_LINE_CHARS and not longer:
        return text
    focus = len(raw[: column - 1].decode("utf-8", "replace")) if column > 1 else 0
    if focus >= len(text):  # the match lies past the part of a huge line that was read
        return cut_line(text, MAX_LINE_CHARS, open_end=True) + f" [first match at byte {column:,}]"
    return cut_line(text, MAX_LINE_CHARS, focus=focus, open_end=longer)


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
        rows = _content_rows(results, query, path_of, limit)
        total = sum(r.rows for r in results)
        shown = sum(1 for r in rows if r != "--")
        head = f"Found {plural(matches, 'matching line')} in {plural(files, 'file')}."
        unit = "lines"
    parts = [head, *rows]
    truncated = shown < total
    if truncated:
        raise_limit = " or raise head_limit" if head_limit else ""
        parts.append(
            f"[Showing the first {shown:,} of {total:,} {unit}. Narrow the search (path, glob, a more "
            f"specific pattern){raise_limit}.]"
        )
    stats = {"files": files, "matches": matches, "shown": shown, "truncated": truncated}
    return "\n".join(parts), stats


def _content_rows(
    results: list[FileResult], query: Query, path_of: Callable[[bytes], str], limit: int | None
) -> list[str]:
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
            if query.context and rows and (previous is None or record.line != previous + 1):
                rows.append("--")
            previous = record.line
            sep = ":" if record.is_match else "-"
            rows.append(f"{path}{sep}{record.line}{sep}{record.text}")
            shown += 1
    return rows
