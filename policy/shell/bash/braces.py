"""Bash brace expansion (``{a,b}``, ``{1..3}``) on raw word text, quote aware."""

from __future__ import annotations

import itertools
import re

from cairn.policy.shell.bash.rewrite import skip_to_close

__all__ = ["brace_expand"]

_MAX_RANGE = 1024  # more items than any caller keeps: the caller sees that the list was cut


def brace_expand(raw: str, limit: int = 16) -> list[str]:
    """Expand unquoted ``{a,b}`` and ``{1..3}`` in raw word text (at most ``limit`` results)."""
    spans = _find_brace(raw)
    if spans is None:
        return [raw]
    start, end, items = spans
    results: list[str] = []
    for item in items:
        for tail in brace_expand(raw[:start] + item + raw[end + 1 :], limit):
            results.append(tail)
            if len(results) >= limit:
                return results
    return results


def _find_brace(raw: str) -> tuple[int, int, list[str]] | None:
    quote = ""
    i = 0
    while i < len(raw):
        ch = raw[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
            i += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "$" and raw[i + 1 : i + 2] == "{":
            i = skip_to_close(raw, i + 2, "${")
            continue
        elif ch == "{":
            depth, j, commas = 0, i + 1, [i]
            q2 = ""
            while j < len(raw):
                c = raw[j]
                if q2:
                    if c == q2:
                        q2 = ""
                elif c in "'\"":
                    q2 = c
                elif c == "{":
                    depth += 1
                elif c == "}":
                    if depth == 0:
                        break
                    depth -= 1
                elif c == "," and depth == 0:
                    commas.append(j)
                j += 1
            if j < len(raw):
                body = raw[i + 1 : j]
                if len(commas) > 1:
                    bounds = [*commas, j]
                    items = [raw[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
                    return i, j, items
                m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)|([a-zA-Z])\.\.([a-zA-Z])", body)
                if m and m.group(1) is not None:
                    a, b = int(m.group(1)), int(m.group(2))
                    step = 1 if b >= a else -1
                    return i, j, [str(n) for n in itertools.islice(range(a, b + step, step), _MAX_RANGE)]
                if m:
                    a, b = ord(m.group(3)), ord(m.group(4))
                    step = 1 if b >= a else -1
                    return i, j, [chr(n) for n in range(a, b + step, step)]
        i += 1
    return None
