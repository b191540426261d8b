"""Checkpoints stored deflated in SQLite: a 2 KB checkpoint takes ~0.4 of its size.

``SqliteSaver`` stores every checkpoint whole (all channel values, LangGraph's version maps
and the names of the channels each step updated), one kept per turn after pruning; most of
its bytes are the same key names again and again.  Serialized values of at least
``MIN_BYTES`` are deflated against a preset dictionary of those names (zlib level 1, 4 KB window: ~15-30 µs);
smaller ones (most pending writes), and any value that would not shrink, stay as they are.

The type tag says how a value was stored, so databases written before this read as before.
``DICTIONARY_1`` is part of the stored format: it never changes; another dictionary would get
another tag (``msgpack+z2``) beside this one.
"""

from __future__ import annotations

import zlib
from typing import Any

import ormsgpack

#: Values shorter than this are stored as they are (deflate's own header costs ~10 bytes).
MIN_BYTES = 512
TAG_1 = "msgpack+z1"

#: Names every cairn checkpoint repeats.  Frozen: see the module docstring.
_WORDS_1 = [
    "channel_values",
    "channel_versions",
    "versions_seen",
    "updated_channels",
    "__start__",
    "__input__",
    "branch:to:reasoning",
    "branch:to:tool_routing",
    "branch:to:tool_execution",
    "branch:to:observation",
    "branch:to:human_approval",
    "branch:to:compaction",
    "reasoning",
    "tool_routing",
    "tool_execution",
    "observation",
    "human_approval",
    "compaction",
    "head",
    "pending_tool_calls",
    "completed_tool_calls",
    "session_rules",
    "tasks",
    "counters",
    "run_steps",
    "activated_tools",
    "paused",
    "pause_reason",
    "delivered_agents",
    "loop_memory",
    "context",
    "compact_request",
    "spend",
    "run_spend",
    "agents_spend",
    "model_calls",
    "tokens_in",
    "tokens_out",
    "tool_calls",
    "cached_input_tokens",
    "input_tokens",
    "output_tokens",
    "calls",
    "unknown",
    "epoch",
    "last_failure",
    "success",
    "error",
    "cancelled",
    "pending",
    "executing",
    "interrupted",
    "awaiting_approval",
    "compacted_at",
    "compactions",
    "elide_before",
    "last_kind",
    "last_prompt_tokens",
    "marker",
    "auto",
    "manual",
    "call_id",
    "tool_name",
    "arguments",
    "status",
    "result",
    "display",
    "metadata",
    "risk",
    "reason",
    "sandbox",
    "LOW",
    "MEDIUM",
    "HIGH",
]
DICTIONARY_1 = b"".join(ormsgpack.packb(word) for word in _WORDS_1)


def deflate(data: bytes) -> bytes:
    # A 4 KB window: zlib's default 32 KB one (and its larger hash table) costs more to set up
    # (~50-200 µs) than deflating a checkpoint takes, for no gain on values this small.
    packer = zlib.compressobj(1, zlib.DEFLATED, 12, 8, zlib.Z_DEFAULT_STRATEGY, DICTIONARY_1)
    return packer.compress(data) + packer.flush()


def inflate(data: bytes) -> bytes:
    unpacker = zlib.decompressobj(15, DICTIONARY_1)
    return unpacker.decompress(data) + unpacker.flush()


class ZippedSerializer:
    """``serde``'s ``dumps_typed``/``loads_typed``, deflating large msgpack values; everything
    else (``dumps``/``loads`` and other attributes) is ``serde``'s own."""

    def __init__(self, serde: Any) -> None:
        self.serde = serde

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        type_, data = self.serde.dumps_typed(obj)
        if type_ == "msgpack" and len(data) >= MIN_BYTES:
            packed = deflate(data)
            if len(packed) < len(data):
                return TAG_1, packed
        return type_, data

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, raw = data
        if type_ == TAG_1:
            return self.serde.loads_typed(("msgpack", inflate(raw)))
        return self.serde.loads_typed(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.serde, name)
