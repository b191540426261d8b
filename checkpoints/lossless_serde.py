"""LangGraph's checkpoint serializer, without its silent loss of lone surrogates.

``JsonPlusSerializer`` packs with ormsgpack's ``OPT_REPLACE_SURROGATES``: a tool call whose
arguments name ``bad\\udcff.txt`` (a file name that is not UTF-8, kept by ``surrogateescape``)
is checkpointed as ``bad?.txt``, so an approved call would run on another file.  Here the
state is packed strictly first -- identical bytes to LangGraph's for every state without
such strings, at the same cost -- and only when that fails are the surrogate strings in its
dicts, lists and tuples packed as an extension type holding their ``surrogatepass`` bytes,
which ``loads_typed`` turns back into the same ``str`` (a dict *key* holding one keeps
``text_escape``'s escaped form: keys cannot be extension types).  (Strings inside other objects, such
as an ``Interrupt``'s display copy of the calls, still go LangGraph's way; the calls
themselves live in plain state.)
"""

from __future__ import annotations

from typing import Any

import ormsgpack
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer, _msgpack_default, _option

from cairn.checkpoints.text_escape import escape_text

#: ormsgpack extension code of a string holding lone surrogates (LangGraph uses 0..7).
SURROGATE_TEXT = 64
_STRICT = _option & ~ormsgpack.OPT_REPLACE_SURROGATES


class _Text:
    __slots__ = ("data",)

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogatepass")


def _default(obj: Any) -> Any:
    if isinstance(obj, _Text):
        return ormsgpack.Ext(SURROGATE_TEXT, obj.data)
    return _msgpack_default(obj)


def _has_surrogate(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _mark(value: Any) -> Any:
    if isinstance(value, str):
        return _Text(value) if _has_surrogate(value) else value
    if isinstance(value, dict):
        # A key cannot be an extension type: one holding a surrogate keeps its escaped form.
        return {(escape_text(k) if isinstance(k, str) else k): _mark(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mark(v) for v in value]
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_mark(v) for v in value)
    return value


class LosslessSerializer(JsonPlusSerializer):
    """``JsonPlusSerializer`` that keeps lone surrogates (see the module docstring)."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if obj is None or isinstance(obj, bytes | bytearray):
            return super().dumps_typed(obj)
        try:
            return "msgpack", ormsgpack.packb(obj, default=_msgpack_default, option=_STRICT)
        except (ormsgpack.MsgpackEncodeError, TypeError):
            pass
        try:
            return "msgpack", ormsgpack.packb(_mark(obj), default=_default, option=_STRICT)
        except (ormsgpack.MsgpackEncodeError, TypeError):
            return super().dumps_typed(obj)  # LangGraph's own way (and its own errors)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, raw = data
        if type_ != "msgpack":
            return super().loads_typed(data)
        upstream = self._unpack_ext_hook

        def hook(code: int, payload: bytes) -> Any:
            if code == SURROGATE_TEXT:
                return payload.decode("utf-8", "surrogatepass")
            return upstream(code, payload)

        return ormsgpack.unpackb(raw, ext_hook=hook, option=ormsgpack.OPT_NON_STR_KEYS)
