"""Small formatting helpers shared by the file tools."""

from __future__ import annotations


def human_size(n: int) -> str:
    """``1234`` -> ``"1.2 KB"``; bytes below 1 KB are shown exactly."""
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``plural(1, "file")`` -> ``"1 file"``; ``plural(3, "match", "matches")`` -> ``"3 matches"``."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def cut_line(line: str, limit: int, *, focus: int = 0) -> str:
    """Cut a long line to about ``limit`` characters, keeping the part around ``focus`` (an index,
    e.g. where a match starts), and say how many characters were left out on each side."""
    if len(line) <= limit:
        return line
    start = 0 if focus < limit // 2 else min(focus - limit // 5, len(line) - limit)
    end = start + limit
    head = f"[... {start:,} chars] " if start > 0 else ""
    tail = f" [... {len(line) - end:,} more chars]" if end < len(line) else ""
    return f"{head}{line[start:end]}{tail}"
