"""The pure-Python grep backend: the same walk and results as ripgrep, one bytes regex per file.

Used when the rg binary is missing (and for patterns ripgrep's regex engine
rejects, e.g. look-around).  It mirrors ripgrep's behaviour: lines split at
``\\n``; a file with a NUL byte is binary and skipped; UTF-16 files with a BOM
are searched as UTF-8; a UTF-8 BOM is dropped.  Regex classes (``\\w``, ``\\d``)
and ``case_insensitive`` are ASCII-only here, where ripgrep's are Unicode-aware.

Patterns are compiled by :mod:`cairn.tools.file_ops.grep_regex` (bounded time per search).
"""

from __future__ import annotations

import codecs
import os
import re
import threading
from pathlib import Path

from cairn.tools.file_ops.grep_collect import Collector
from cairn.tools.file_ops.grep_format import PREVIEW_BYTES, line_text
from cairn.tools.file_ops.grep_regex import Compiled, compile_pattern
from cairn.tools.file_ops.grep_types import FileResult, Query, Record
from cairn.tools.file_ops.ripgrep import Cancelled
from cairn.tools.file_ops.walk import Scope, iter_files

_HEAD = 65536
#: Non-blocking so that a FIFO swapped in after the walk's type check cannot hang the search.
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def read_text_bytes(path: str) -> bytes | None:
    """File bytes as ripgrep searches them, or ``None`` for binary/unreadable files.

    Plain ``os`` calls (no file object) because this runs once per file of a tree.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        data = os.read(fd, _HEAD)
        if b"\0" in data and not data.startswith(_UTF16_BOMS):
            return None  # binary: do not read the rest of a big binary file
        if len(data) == _HEAD:
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    if data.startswith(_UTF16_BOMS):
        data = data.decode("utf-16", errors="replace").encode("utf-8")
    if b"\0" in data:
        return None
    return data[3:] if data.startswith(codecs.BOM_UTF8) else data


def is_binary_file(path: str) -> bool:
    """Whether a file holds a NUL byte (or cannot be read), scanned 1 MB at a time.

    A file starting with a UTF-16 BOM is text here; ripgrep transcodes it.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return True
    try:
        chunk = os.read(fd, _HEAD)
        if chunk.startswith(_UTF16_BOMS):
            return False
        while chunk:
            if b"\0" in chunk:
                return True
            chunk = os.read(fd, 1 << 20)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def matching_lines(
    data: bytes, compiled: Compiled, cancel: threading.Event | None = None
) -> list[tuple[int, int, int, int]]:
    """(line number, start, end, match column) of every line with a match; no match may span a
    line break. The column is the 1-based byte offset of the line's first match, as rg reports it."""
    out: list[tuple[int, int, int, int]] = []
    pos = lineno_at = 0
    if compiled.literal is not None:  # no match before the line of the literal's first occurrence
        at = data.find(compiled.literal)
        if at < 0:
            return out
        pos = data.rfind(b"\n", 0, at) + 1
    n = len(data)
    line_no = 1
    search, rfind, find, count = compiled.search, data.rfind, data.find, data.count
    while pos <= n:
        if cancel is not None and len(out) % 4096 == 4095 and cancel.is_set():
            raise Cancelled()
        m = search(data, pos)
        if m is None:
            break
        s = m.start()
        if s == n and (n == 0 or data[n - 1] == 10):
            break  # the empty "line" after the final newline
        ls = rfind(b"\n", 0, s) + 1
        le = find(b"\n", s)
        if le < 0:
            le = n
        if m.end() > le:  # the match crossed a line break: does the line alone match?
            m = search(data, ls, le)
            if m is None:
                pos = le + 1
                continue
            s = m.start()
        line_no += count(b"\n", lineno_at, ls)
        lineno_at = ls
        out.append((line_no, ls, le, s - ls + 1))
        pos = le + 1
    return out


def _text(raw: bytes, column: int) -> str:
    """Like ripgrep with ``--max-columns``: of a huge line only the first bytes are used."""
    if len(raw) > PREVIEW_BYTES:
        return line_text(raw[:PREVIEW_BYTES], column, longer=True)
    return line_text(raw, column)


def search_data(
    data: bytes, compiled: Compiled, query: Query, room: int | None, cancel: threading.Event | None = None
) -> FileResult | None:
    """The result for one file's bytes, with at most ``room`` records (``None``: all)."""
    hits = matching_lines(data, compiled, cancel)
    if not hits:
        return None
    if query.mode != "content":
        return FileResult(b"", len(hits))
    if not query.context:
        kept = hits if room is None else hits[:room]
        records = [Record(ln, col, _text(data[s:e], col)) for ln, s, e, col in kept]
        return FileResult(b"", len(hits), len(hits), records)
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    matched = {ln: col for ln, _, _, col in hits}
    wanted: set[int] = set()
    for ln in matched:
        wanted.update(range(max(1, ln - query.context), min(len(lines), ln + query.context) + 1))
    ordered = sorted(wanted)
    kept_lines = ordered if room is None else ordered[:room]
    records = [Record(ln, matched.get(ln, 0), _text(lines[ln - 1], matched.get(ln, 0))) for ln in kept_lines]
    return FileResult(b"", len(hits), len(ordered), records)


def search_scope(scope: Scope, query: Query, cancel: threading.Event | None) -> list[FileResult]:
    compiled = compile_pattern(query.pattern, query.case_insensitive)
    # re's literal search beats bytes.find for longer needles (CPython's two-way search).
    has_literal = re.compile(re.escape(compiled.literal)).search if compiled.literal else None
    base = str(scope.base)
    collector = Collector(query.max_rows if query.mode == "content" else None)
    for rel in iter_files(scope):
        if cancel is not None and cancel.is_set():
            raise Cancelled()
        if query.accept is not None and not query.accept(scope.from_start(rel)):
            continue
        data = read_text_bytes(f"{base}/{rel}")
        if data is None or (has_literal is not None and has_literal(data) is None):
            continue  # most files of a tree: skipped without a call per file
        path = os.fsencode(rel)
        result = search_data(data, compiled, query, collector.room(path), cancel)
        if result is not None:
            result.path = path
            collector.add(result)
    return collector.results()


def search_file(
    path: Path, rel: str, query: Query, cancel: threading.Event | None = None
) -> FileResult | None:
    compiled = compile_pattern(query.pattern, query.case_insensitive)
    data = read_text_bytes(str(path))
    result = None if data is None else search_data(data, compiled, query, query.max_rows, cancel)
    if result is not None:
        result.path = os.fsencode(rel)
    return result
