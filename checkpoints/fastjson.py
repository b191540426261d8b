"""JSON for cairn's tables: orjson when it can, the standard library when it cannot.

orjson is several times faster on the large documents the transcript and journal hold
(tool output, long histories).  It refuses a few things ``json`` accepts (integers beyond
64 bits, some subclasses, strings holding a lone surrogate); those fall back to ``json``
so nothing that stored before fails now.  The fallback writes ASCII: a lone surrogate (an
undecodable byte kept by ``surrogateescape``, or a ``\\udcff`` the model sent) becomes a JSON
``\\udcff`` escape, which any UTF-8 column accepts and ``loads`` turns back into the same ``str``.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(data: Any, *, default: Any = None) -> str:
    """Compact JSON text (``separators=(",", ":")``)."""
    return dumps_bytes(data, default=default).decode("utf-8")


def dumps_bytes(data: Any, *, default: Any = None) -> bytes:
    try:
        return orjson.dumps(data, default=default, option=_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(data, separators=(",", ":"), default=default, ensure_ascii=True).encode("ascii")


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # NaN written through ``json``; ``\\udcff`` escapes (lone surrogates)
        return json.loads(text)
