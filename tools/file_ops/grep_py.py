"""The pure-Python grep backend: the same walk and results as ripgrep, one bytes regex per file.

Used when the rg binary is missing (and for patterns ripgrep's regex engine
rejects, e.g. look-around).  It mirrors ripgrep's behaviour: lines split at
``\\n``; a file with a NUL byte is binary and skipped; UTF-16 files with a BOM
are searched as UTF-8; a UTF-8 BOM is dropped.  Regex classes (``\\w``, ``\\d``)
and ``case_insensitive`` are ASCII-only here, where ripgrep's are Unicode-aware.
"""

from __future__ import annotations

import codecs
import os
import re
import threading
from pathlib import Path

from tools.file_ops.grep_types import NEWLINE_ERROR, FileResult, PatternError, Query
from tools.file_ops.ripgrep import Cancelled
from tools.file_ops.walk import Scope, iter_files

_HEAD = 65536
#: Non-blocking so that a FIFO swapped in after the walk's type check cannot hang the search.
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "lower": "a-z", "upper": "A-Z",
    "space": r" \t\n\r\f\v", "xdigit": "0-9A-Fa-f", "word": r"\w", "punct": r"!-/:-@\[-`{-~",
    "blank": r" \t", "cntrl": r"\x00-\x1f\x7f", "print": r" -~", "graph": "!-~",
}  # fmt: skip


def compile_pattern(pattern: str, case_insensitive: bool) -> re.Pattern[bytes]:
    """Compile a ripgrep-style pattern with Python's ``re`` (the common syntax is shared)."""
    if "\n" in pattern or "\\n" in pattern:
        raise PatternError(NEWLINE_ERROR)
    source = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)  # named groups: (?<name>...) -> (?P<name>...)
    source = re.sub(r"\[:(\w+):\]", lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), source)
    source = source.replace(r"\z", r"\Z")
    flags = re.MULTILINE | (re.IGNORECASE if case_insensitive else 0)
    try:
        return re.compile(source.encode("utf-8", "surrogateescape"), flags)
    except re.error as exc:
        raise PatternError(f"Invalid regex: {exc}") from None


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


def matching_lines(data: bytes, rx: re.Pattern[bytes]) -> list[tuple[int, int, int]]:
    """(line number, start, end) of every line with a match; no match may span a line break."""
    out: list[tuple[int, int, int]] = []
    n = len(data)
    pos = lineno_at = line_no = 0
    line_no = 1
    search, rfind, find, count = rx.search, data.rfind, data.find, data.count
    while pos <= n:
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
        if m.end() > le and search(data, ls, le) is None:
            pos = le + 1  # the match crossed a line break and the line alone does not match
            continue
        line_no += count(b"\n", lineno_at, ls)
        lineno_at = ls
        out.append((line_no, ls, le))
        pos = le + 1
    return out


def search_data(data: bytes, rx: re.Pattern[bytes], query: Query) -> FileResult | None:
    hits = matching_lines(data, rx)
    if not hits:
        return None
    if query.mode != "content":
        return FileResult(b"", len(hits))
    if not query.context:
        return FileResult(b"", len(hits), [b"%d:%s" % (ln, data[s:e]) for ln, s, e in hits])
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    matched = {ln for ln, _, _ in hits}
    wanted: set[int] = set()
    for ln in matched:
        wanted.update(range(max(1, ln - query.context), min(len(lines), ln + query.context) + 1))
    records = [b"%d%s%s" % (ln, b":" if ln in matched else b"-", lines[ln - 1]) for ln in sorted(wanted)]
    return FileResult(b"", len(hits), records)


def search_scope(scope: Scope, query: Query, cancel: threading.Event | None) -> list[FileResult]:
    rx = compile_pattern(query.pattern, query.case_insensitive)
    literal = required_literal(rx)
    base = str(scope.base)
    results: list[FileResult] = []
    for i, rel in enumerate(iter_files(scope)):
        if cancel is not None and i % 256 == 0 and cancel.is_set():
            raise Cancelled()
        if query.accept is not None and not query.accept(scope.from_start(rel)):
            continue
        data = read_text_bytes(f"{base}/{rel}")
        if data is None or (literal is not None and literal not in data):
            continue
        result = search_data(data, rx, query)
        if result is not None:
            result.path = os.fsencode(rel)
            results.append(result)
    results.sort(key=lambda r: r.path)
    return results


def search_file(path: Path, rel: str, query: Query) -> FileResult | None:
    rx = compile_pattern(query.pattern, query.case_insensitive)
    data = read_text_bytes(str(path))
    result = None if data is None else search_data(data, rx, query)
    if result is not None:
        result.path = os.fsencode(rel)
    return result
