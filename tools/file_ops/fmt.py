"""Small formatting helpers shared by the file tools."""

from __future__ import annotations

from collections.abc import Callable


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


def cut_line(line: str, limit: int, *, focus: int = 0, open_end: bool = False) -> str:
    """Cut a long line to about ``limit`` characters, keeping the part around ``focus`` (an index,
    e.g. where a match starts), and say how many characters were left out on each side.

    ``open_end``: ``line`` is only the start of a longer line (the tail count is a minimum).
    """
    if len(line) <= limit and not open_end:
        return line
    start = 0 if focus < limit // 2 else max(0, min(focus - limit // 5, len(line) - limit))
    end = start + limit
    head = f"[... {start:,} chars] " if start > 0 else ""
    rest = len(line) - end
    if open_end:
        tail = f" [... over {rest:,} more chars]" if rest > 0 else " [... the line goes on]"
    else:
        tail = f" [... {rest:,} more chars]" if rest > 0 else ""
    return f"{head}{line[start:end]}{tail}"


def bounded_rows(count: int, render: Callable[[int], str], budget: int, *, unit: str = "rows") -> list[str]:
    """Rows ``render(0) .. render(count - 1)`` within about ``budget`` characters: the first ones
    (80% of the budget) and the last ones, with a marker saying how many were left out between.
    Rows that are not shown are never rendered."""
    head: list[str] = []
    used = 0
    i = 0
    while i < count and used < budget * 0.8:
        row = render(i)
        head.append(row)
        used += len(row) + 1
        i += 1
    if i == count:
        return head
    tail: list[str] = []
    j = count - 1
    while j >= i and used < budget:
        row = render(j)
        tail.append(row)
        used += len(row) + 1
        j -= 1
    omitted = j - i + 1
    middle = [f"[... {omitted:,} {unit} omitted ...]"] if omitted else []
    return head + middle + tail[::-1]
