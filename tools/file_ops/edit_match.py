"""Finding ``old_string`` in a file for edit_file, and explaining why it was not found.

Matching is exact except for line endings: a ``\\n`` in ``old_string`` matches
``\\r\\n``, ``\\n`` or ``\\r`` in the file, so a model that never sees carriage
returns can still edit a CRLF file.  Each replacement uses the line ending
found in the text it replaces.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

#: One line break. A lone ``\r`` counts only when no ``\n`` follows, so ``\r\n`` is never two breaks.
_BREAK = r"(?:\r\n|\r(?!\n)|\n)"
_NEWLINE = re.compile(_BREAK)
_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\t", re.MULTILINE)
_REPLACEMENT = "\ufffd"
_ESCAPED = re.compile("[\udc80-\udcff]")
_ANY_REPLACED = "[\ufffd\udc80-\udcff]"


@dataclass(frozen=True)
class Occurrence:
    start: int
    end: int
    newline: str | None  # the line ending inside the matched text, if it spans lines


def find_occurrences(text: str, old: str) -> list[Occurrence]:
    """Non-overlapping occurrences of ``old`` in ``text``, left to right."""
    old = old.replace("\r\n", "\n")
    if "\n" not in old and not (_REPLACEMENT in old and _ESCAPED.search(text)):
        out, pos = [], text.find(old)
        while pos >= 0 and old:
            out.append(Occurrence(pos, pos + len(old), None))
            pos = text.find(old, pos + len(old))
        return out
    # U+FFFD copied from read_file also matches the invalid byte it stands for (see textio.printable).
    parts = (re.escape(part).replace(_REPLACEMENT, _ANY_REPLACED) for part in old.split("\n"))
    rx = re.compile(_BREAK.join(parts))
    found = []
    for m in rx.finditer(text):
        nl = _NEWLINE.search(m.group(0))
        found.append(Occurrence(m.start(), m.end(), nl.group(0) if nl else None))
    return found


def replacement_text(new: str, occurrence: Occurrence, file_newline: str) -> str:
    """``new`` with its line endings converted to those of the replaced text (or the file's)."""
    unified = new.replace("\r\n", "\n")
    newline = occurrence.newline or file_newline
    return unified if newline == "\n" else unified.replace("\n", newline)


def line_of(text: str, index: int) -> int:
    """The line number of ``index``, counted as read_file numbers lines (see ``split_lines``)."""
    sep = "\r" if "\n" not in text and "\r" in text else "\n"
    return text.count(sep, 0, index) + 1


def _norm(line: str) -> str:
    return " ".join(line.split())


def not_found_hint(text: str, old: str, new: str) -> str:
    """Why ``old`` is not in ``text``, with the nearest candidates and their line numbers."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    old_lines = old.replace("\r\n", "\n").split("\n")
    hints: list[str] = []
    if _LINE_NUMBER_PREFIX.match(old) and all(
        _LINE_NUMBER_PREFIX.match(ln) for ln in old_lines if ln.strip()
    ):
        hints.append(
            "old_string seems to include the line-number prefixes read_file shows (number + tab); "
            "remove them and keep only the file's text."
        )
    lead = 0
    while lead < len(old_lines) and not old_lines[lead].strip():
        lead += 1
    given = old_lines[lead:]
    while given and not given[-1].strip():
        given.pop()
    wanted = [_norm(ln) for ln in given]
    if wanted:
        normalized = [_norm(ln) for ln in lines]
        for i in range(len(lines) - len(wanted) + 1):
            if normalized[i : i + len(wanted)] == wanted:
                first, last = i + 1, i + len(wanted)
                where = f"line {first}" if first == last else f"lines {first}-{last}"
                k = next((k for k, g in enumerate(given) if lines[i + k] != g), 0)
                hints.append(
                    f"The text matches {where} if whitespace is ignored; the file differs in indentation or "
                    f"spacing (tabs vs spaces, trailing spaces). Line {i + k + 1} of the file is "
                    f"{lines[i + k]!r} where old_string has {given[k]!r}. Copy the exact text from read_file."
                )
                break
    if new and new.replace("\r\n", "\n") in text.replace("\r\n", "\n"):
        idx = text.replace("\r\n", "\n").find(new.replace("\r\n", "\n"))
        hints.append(
            f"new_string already appears at line {line_of(text.replace(chr(13) + chr(10), chr(10)), idx)}: "
            "was this edit already made?"
        )
    if not any("whitespace" in h for h in hints):
        probe = max((ln for ln in old_lines if ln.strip()), key=len, default="").strip()
        if probe and len(lines) <= 50_000:
            stripped = [ln.strip() for ln in lines]
            close = difflib.get_close_matches(probe, stripped, n=3, cutoff=0.6)
            shown = []
            for candidate in close:
                number = stripped.index(candidate) + 1
                shown.append(f"  line {number}: {lines[number - 1].strip()[:200]}")
            if shown:
                hints.append("The most similar lines in the file:\n" + "\n".join(shown))
    hints.append(
        "Read the file again with read_file and copy old_string exactly (it must match character for character)."
    )
    return "\n".join(hints)


def numbered(lines: list[str], first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) with their numbers, as read_file shows them."""
    first, last = max(1, first), min(len(lines), last)
    return "\n".join(f"{n:>6}\t{lines[n - 1][:300]}" for n in range(first, last + 1))


def match_contexts(text: str, line_numbers: list[int], around: int = 2, most: int = 10) -> str:
    """Every match of an ambiguous old_string with the lines around it, to choose from."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    parts = [f"match at line {n}:\n{numbered(lines, n - around, n + around)}" for n in line_numbers[:most]]
    more = f"\n(and {len(line_numbers) - most} more)" if len(line_numbers) > most else ""
    return (
        "Here is every match with its surrounding lines; copy enough of them to make old_string unique:\n"
        + "\n\n".join(parts)
        + more
    )


def closest_region(text: str, old: str, around: int = 4) -> str | None:
    """The part of the file most like old_string's longest line, numbered, to copy from."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    probe = max((ln for ln in old.split("\n") if ln.strip()), key=len, default="").strip()
    if not probe or len(lines) > 50_000:
        return None
    stripped = [ln.strip() for ln in lines]
    close = difflib.get_close_matches(probe, stripped, n=1, cutoff=0.4)
    if not close:
        return None
    n = stripped.index(close[0]) + 1
    return f"The closest part of the file (lines {max(1, n - around)}-{min(len(lines), n + around)}), exactly as it is:\n{numbered(lines, n - around, n + around)}"
