"""What the journal keeps of a finished call for people, beyond status and summary."""

from __future__ import annotations

import json
from typing import Any

from cairn.graph.core.state import ToolCallInfo

#: Metadata larger than this (serialized) is not kept in the call log, key by key.
MAX_DETAIL_VALUE = 64_000
_NEVER_KEPT = ("state", "image")


def call_details(call: ToolCallInfo) -> dict[str, Any]:
    """What the call log keeps for people beyond status and summary (diff, decision...)."""
    metadata: dict[str, Any] = {}
    for key, value in call.metadata.items():
        if key in _NEVER_KEPT:
            continue
        try:
            if len(json.dumps(value, default=str)) <= MAX_DETAIL_VALUE:
                metadata[key] = value
        except (TypeError, ValueError):
            continue
    details: dict[str, Any] = {"metadata": metadata}
    for key in ("decision", "original_arguments", "preview", "attempt", "sandbox", "network", "hooks"):
        value = getattr(call, key)
        if value:
            details[key] = value
    return details
