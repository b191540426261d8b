"""File names that are not valid UTF-8: shown with escapes, found again from the escaped form.

Python decodes such a name with ``surrogateescape``: byte ``0xff`` becomes the lone
surrogate U+DCFF, which no UTF-8 encoder accepts.  Everything a tool hands out
(its output, display line and error) goes through :func:`escape_text`, so
``b"bad\\xff.txt"`` is shown as ``bad\\xff.txt`` -- four ASCII characters in place
of the byte.  The model may pass that form back: :func:`unescape_name` turns every
``\\x80``..``\\xff`` escape into the byte's surrogate again, and the workspace uses it
when the name as given does not exist (a name that really contains a backslash wins).

Lone surrogates that do not stand for a byte (U+D800..U+DC7F, U+DD00..U+DFFF: only a
model can produce them) are shown as ``\\udXXX``; they name no file.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """``text`` with every lone surrogate written as an escape (safe to encode as UTF-8)."""
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape_one, text)


def has_escape(text: str) -> bool:
    """Whether ``text`` contains a ``\\xHH`` escape of a non-ASCII byte."""
    return "\\x" in text and _BYTE_ESCAPE.search(text) is not None


def unescape_name(text: str) -> str:
    """The name ``escape_text`` showed as ``text``: ``\\xff`` back to the byte's surrogate."""
    if not has_escape(text):
        return text
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)


def escape_data(value: Any) -> Any:
    """``value`` (str, list, dict, tuple) with :func:`escape_text` applied to every string in it."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, list):
        return [escape_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(escape_data(v) for v in value)
    if isinstance(value, dict):
        return {escape_data(k): escape_data(v) for k, v in value.items()}
    return value
