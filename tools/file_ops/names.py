"""File names that are not valid UTF-8: shown with escapes, found again from the escaped form.

Python decodes such a name with ``surrogateescape``: byte ``0xff`` becomes the lone
surrogate U+DCFF, which no UTF-8 encoder accepts.  Everything a tool hands out
(its output, display line and error) goes through :func:`escape_text`, so
``b"bad\\xff.txt"`` is shown as ``bad\\xff.txt`` -- four ASCII characters in place
of the byte.  The model may pass that form back: :func:`unescape_name` turns every
``\\x80``..``\\xff`` escape into the byte's surrogate again, and the workspace uses it
when the name as given does not exist (a name that really contains a backslash wins).

Lone surrogates that do not stand for a byte (U+D800..U+DC7F, U+DD00..U+DFFF: only a
model can produce them) are shown as ``\\udXXX``, and NUL as ``\\x00``; they name no file.
The escaping itself lives in :mod:`cairn.checkpoints.text_escape` (a leaf module both the
tools and the stores use); this module adds the way back for names.
"""

from __future__ import annotations

import re

# The escaped form is one fact, spelled once (the journal and text columns use it too).
from cairn.checkpoints.text_escape import escape_data, escape_text

__all__ = ["escape_data", "escape_text", "has_escape", "unescape_name"]

_BYTE_ESCAPE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


def has_escape(text: str) -> bool:
    """Whether ``text`` contains a ``\\xHH`` escape of a non-ASCII byte."""
    return "\\x" in text and _BYTE_ESCAPE.search(text) is not None


def unescape_name(text: str) -> str:
    """The name ``escape_text`` showed as ``text``: ``\\xff`` back to the byte's surrogate."""
    if not has_escape(text):
        return text
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)
