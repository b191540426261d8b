"""JSON for cairn's tables: orjson when it can, the standard library when it cannot.

orjson is several times faster on the large documents the transcript and journal hold
(tool output, long histories).  It refuses a few things ``json`` accepts (integers beyond
64 bits, some subclasses); those fall back to ``json`` so nothing that stored before fails now.
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
        return json.dumps(data, separators=(",", ":"), default=default, ensure_ascii=False).encode("utf-8")


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # e.g. NaN written by an older version through ``json``
        return json.loads(text)
