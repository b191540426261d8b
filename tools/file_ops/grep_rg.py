"""The ripgrep grep backend: one rg run, its output streamed into per-file results.

Content mode asks rg for the column of each line's first match (``--column``), so
long lines are cut around the match without running the pattern again in Python,
and caps the bytes printed per line (``--max-columns`` with a preview).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.grep_collect import Collector
from cairn.tools.file_ops.grep_format import PREVIEW_BYTES, line_text
from cairn.tools.file_ops.grep_types import NEWLINE_ERROR, FileResult, PatternError, Query, Record
from cairn.tools.file_ops.walk import Scope

_BINARY_WARNING = b": WARNING: stopped searching binary file"
#: What rg prints instead of lines for a binary file given explicitly.
_BINARY_EXPLICIT = b": binary file matches ("
#: ``12:5:`` (a match at byte column 5) or ``13-`` (a context line).
_LINE_PREFIX = re.compile(rb"(\d+)(?::(\d+):|-)")


class BinaryFile(Exception):
    """rg found a NUL byte in a file given explicitly (the fallback calls such a file binary)."""


def search_scope(rg: str, scope: Scope, query: Query, cancel: threading.Event | None) -> list[FileResult]:
    cut = len(scope.start) + 1 if scope.start else 0
    accept = None
    if query.accept is not None:
        test = query.accept
        accept = lambda path: test(os.fsdecode(path)[cut:])  # noqa: E731
    with ripgrep.scope_args(scope) as flags:
        args = [rg, *_mode_args(query), *flags]
        args += ripgrep.name_filter(query.rg_names)
        args += ["-e", query.pattern, "--", *ripgrep.search_paths(scope)]
        collector = Collector(query.max_rows if query.mode == "content" else None)
        with ripgrep.Stream(args, scope.base, cancel) as run:
            _collect(run, query, collector, accept)
            rc, err = run.finish()
    results = collector.results()
    _check(rc, err, bool(results))
    return results


def search_file(
    rg: str, base: Path, rel: str, query: Query, cancel: threading.Event | None
) -> FileResult | None:
    """Search one file given explicitly (ignore rules do not apply to it).

    Raises :class:`BinaryFile` when rg reports a NUL byte in it.
    """
    args = [rg, *_mode_args(query), "--no-config", "--color=never", "-e", query.pattern, "--", rel]
    collector = Collector(query.max_rows if query.mode == "content" else None)
    with ripgrep.Stream(args, base, cancel) as run:
        binary = _collect(run, query, collector, None)
        rc, err = run.finish()
    if binary:
        raise BinaryFile(rel)
    results = collector.results()
    _check(rc, err, bool(results))
    return results[0] if results else None


def _mode_args(query: Query) -> list[str]:
    if query.mode == "content":
        args = ["--line-number", "--column", "--no-heading", "--with-filename", "--null"]
        args += ["--max-columns", str(PREVIEW_BYTES), "--max-columns-preview"]
        if query.context:
            args += ["--context", str(query.context)]
    else:
        # --count (not --files-with-matches) for both count modes: -l stops at the first match and
        # would list files that turn out to be binary further down; -c skips them, like the fallback.
        args = ["--count", "--with-filename", "--null"]
    if query.case_insensitive:
        args.append("--ignore-case")
    else:
        args.append("--case-sensitive")
    return args


def _collect(
    run: ripgrep.Stream, query: Query, collector: Collector, accept: Callable[[bytes], bool] | None
) -> bool:
    """Feed rg's output to ``collector``; True if rg reported an explicitly given file as binary."""
    if query.mode != "content":
        for line in run.lines():
            path, sep, count = line.partition(b"\0")
            if sep and count.isdigit() and (accept is None or accept(path)):
                collector.add(FileResult(path, int(count)))
        return False
    # rg prints each file's lines (and its binary-file warning) as one block.
    binary = False
    current: FileResult | None = None
    room: int | None = 0
    skipped = b"\0"  # a path ``accept`` rejected (no real path contains NUL)
    for chunk in run.chunks():
        if current is not None and room is not None and len(current.records) >= room and not query.context:
            # Only counting is left for this file: a block of its match lines is counted at once.
            prefix = current.path + b"\0"
            n = chunk.count(b"\n") + (not chunk.endswith(b"\n"))
            if chunk.startswith(prefix) and chunk.count(b"\n" + prefix) + 1 == n:
                current.count += n
                current.rows += n
                continue
        lines = chunk.split(b"\n")
        if chunk.endswith(b"\n"):
            lines.pop()
        for line in lines:
            path, sep, rest = line.partition(b"\0")
            if not sep:
                if _BINARY_WARNING in line and current is not None and line.startswith(current.path + b":"):
                    current = None  # the fallback skips a file with a NUL anywhere: drop the block
                binary = binary or _BINARY_EXPLICIT in line
                continue
            if current is None or path != current.path:
                if path == skipped:
                    continue
                if accept is not None and not accept(path):
                    skipped = path
                    continue
                if current is not None:
                    collector.add(current)
                current, room = FileResult(path), collector.room(path)
            m = _LINE_PREFIX.match(rest)
            if m is None:
                continue
            column = int(m.group(2) or 0)
            current.rows += 1
            if column:
                current.count += 1
            if room is None or len(current.records) < room:
                raw = rest[m.end() :]
                longer = len(raw) > PREVIEW_BYTES  # rg's preview: the first bytes, then " [... N more ...]"
                text = line_text(raw[:PREVIEW_BYTES] if longer else raw, column, longer=longer)
                current.records.append(Record(int(m.group(1)), column, text))
    if current is not None:
        collector.add(current)
    return binary


def _check(rc: int, err: bytes, have_results: bool) -> None:
    """Turn rg's exit status into an exception when the search itself failed."""
    if rc in (0, 1):
        return
    message = err.decode("utf-8", "replace").strip()
    if 'literal "\\n" is not allowed' in message:
        raise PatternError(NEWLINE_ERROR)
    if "regex" in message:
        raise PatternError(_clean(message))
    if not have_results and message:
        raise RuntimeError(f"ripgrep failed: {message[:500]}")


def _clean(message: str) -> str:
    lines = [ln for ln in message.splitlines() if ln.strip()]
    return "Invalid regex (ripgrep / Rust syntax): " + "\n".join(ln.removeprefix("rg: ") for ln in lines[:6])
