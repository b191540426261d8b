"""Near-JSON that small models write for tool calls, repaired when the intent is unambiguous.

Accepted, in this order: strict JSON; braces doubled by a prompt template (``{{"name": …}}``);
trailing commas; single-quoted strings (``{'path': 'a.py'}``); Python's ``True``/``False``/
``None``; string literals joined with ``+`` (``"## " + "2.4.1"``); raw strings (``r"\bport\b"``).  Anything else (an expression, a comment, an unquoted key) stays unparsed: the caller
turns a block that names a tool into an invalid call the model can correct.
"""

from __future__ import annotations

import json
import re
from typing import Any

from cairn.errors import CairnError

_PY_WORDS = {"True": "true", "False": "false", "None": "null"}
_PLUS = re.compile(r"\s*\+\s*")


class NearJsonError(CairnError, ValueError):
    """Not JSON, and not one of the repairable near-JSON forms."""


def loads_near_json(text: str) -> Any:
    body = text.strip()
    try:
        return json.loads(body)
    except ValueError:
        pass
    candidates = [body]
    if body.startswith("{{") and body.endswith("}}"):
        candidates.insert(0, body.replace("{{", "{").replace("}}", "}"))
    last: Exception | None = None
    for candidate in candidates:
        try:
            return json.loads(_normalize(candidate))
        except ValueError as exc:
            last = exc
    raise NearJsonError(str(last))


def _normalize(text: str) -> str:
    """Single-quoted strings → JSON strings, trailing commas dropped, Python constants → JSON."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            end, value = _read_string(text, i)
            joined, end = _concatenated(text, end, value)
            out.append(json.dumps(joined) if ch == "'" or joined is not value else text[i:end])
            i = end
            continue
        if ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # trailing comma
                continue
        if ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            if word in ("r", "R") and j < n and text[j] in "\"'":  # a Python raw string: r"\bport\b"
                i = _raw_string(text, j, out)
                continue
            out.append(_PY_WORDS.get(word, word))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _raw_string(text: str, start: int, out: list[str]) -> int:
    """Append the raw string literal at ``start`` (backslashes kept) as JSON; the index after it."""
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    if i >= len(text):
        raise ValueError("unterminated string")
    out.append(json.dumps(text[start + 1 : i]))
    return i + 1


def _concatenated(text: str, end: int, value: str) -> tuple[str, int]:
    """``value`` joined with the string literals ``+`` adds to it (``"## " + "2.4.1"``, which
    Qwen2.5-Coder-1.5B writes for a file's content), and the index after the last of them."""
    match = _PLUS.match(text, end)
    while match is not None and match.end() < len(text) and text[match.end()] in "\"'":
        end, more = _read_string(text, match.end())
        value += more
        match = _PLUS.match(text, end)
    return value, end


def _read_string(text: str, start: int) -> tuple[int, str]:
    """(index after the closing quote, decoded value) of the string literal at ``start``."""
    quote = text[start]
    chars: list[str] = []
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            mapping = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/"}
            if nxt in mapping:
                chars.append(mapping[nxt])
                i += 2
                continue
            if nxt == "u" and i + 5 < len(text):
                try:
                    chars.append(chr(int(text[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                except ValueError:
                    pass
            raise ValueError(f"unknown escape \\{nxt}")
        if ch == quote:
            return i + 1, "".join(chars)
        chars.append(ch)
        i += 1
    raise ValueError("unterminated string")
