"""Strings that cannot be stored as they are: lone surrogates and NUL.

cairn keeps text that is not valid UTF-8 in memory as ``surrogateescape``'d ``str`` (byte
``0xff`` is the lone surrogate U+DCFF), as Python decodes file names, argv and the model's
``\\udcff`` escapes.  No UTF-8 encoder accepts a lone surrogate, and PostgreSQL's ``TEXT``
refuses NUL, so:

- JSON columns and blobs keep such strings exactly: ``fastjson`` writes them as JSON ``\\udcff``
  escapes, which read back to the same ``str``;
- plain text columns that only describe (a title, a summary, an error line) and text sent to a
  model get :func:`escape_text`: a surrogate that stands for a byte is written ``\\xff``, any
  other lone surrogate ``\\udXXX``, NUL ``\\x00`` -- the same form the file tools show names in
  (``cairn.tools.file_ops.names``; the layers keep the two packages apart, so both spell it).
"""

from __future__ import annotations

import re
from typing import Any

_UNSTORABLE = re.compile("[\ud800-\udfff\x00]")


def _escape_one(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0:
        return "\\x00"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def needs_escape(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate or NUL."""
    if text.isascii():
        return "\x00" in text
    return _UNSTORABLE.search(text) is not None


def escape_text(text: str) -> str:
    """``text`` safe for any UTF-8 text column or wire: surrogates and NUL as escapes."""
    if not needs_escape(text):
        return text
    return _UNSTORABLE.sub(_escape_one, text)


def escape_optional(text: str | None) -> str | None:
    return None if text is None else escape_text(text)


#: Marks a key column value (a path) stored as JSON because it could not be stored as it is.
_KEY_MARK = "json:"


def store_key(text: str) -> str:
    """A reversible text-column form of ``text`` (a path that may hold undecodable bytes).

    Storable text is kept as it is; anything else is stored as ``json:`` plus its JSON (whose
    ``\\udcff`` escapes read back exactly), which no absolute path begins with.
    """
    if not needs_escape(text) and not text.startswith(_KEY_MARK):
        return text
    import json

    return _KEY_MARK + json.dumps(text)


def load_key(stored: str) -> str:
    """The text :func:`store_key` stored."""
    if not stored.startswith(_KEY_MARK):
        return stored
    import json

    return json.loads(stored[len(_KEY_MARK) :])


def escape_data(value: Any) -> Any:
    """``value`` (str, list, tuple, dict) with :func:`escape_text` applied to every string in it."""
    if isinstance(value, str):
        return escape_text(value)
    if isinstance(value, list):
        return [escape_data(v) for v in value]
    if isinstance(value, tuple):
        return tuple(escape_data(v) for v in value)
    if isinstance(value, dict):
        return {escape_data(k): escape_data(v) for k, v in value.items()}
    return value
