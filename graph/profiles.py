"""Tool profiles: ``full`` (every tool, full descriptions) and ``lean`` for small local models
(the six core tools with short descriptions and a compact system prompt).

Lean is chosen automatically when the model's context window is small (≤ 16k tokens); otherwise
``Session(tool_profile=…)``, ``--tools``, ``[tools] profile`` in the settings, or ``full``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

PROFILES = ("lean", "full")
LEAN_TOOLS = ("read_file", "glob", "grep", "edit_file", "write_file", "bash")
#: A context window this small (tokens) gets the lean profile unless one is chosen explicitly.
SMALL_CONTEXT = 16_384
MAX_LEAN_FIELD_DESCRIPTION = 90


class ProfileError(ValueError):
    pass


def choose_profile(explicit: str | None, configured: str | None, context_window: int | None) -> str:
    for value in (explicit, configured):
        if value not in (None, "", "auto"):
            if value not in PROFILES:
                raise ProfileError(f"unknown tool profile {value!r}; choose lean, full or auto")
            return value
    if context_window is not None and 0 < context_window <= SMALL_CONTEXT:
        return "lean"
    return "full"


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool schema with its description cut to the first paragraph and field descriptions to a
    sentence; names, types, enums and required fields stay exactly as they are."""
    out = copy.deepcopy(schema)
    function = out["function"]
    function["description"] = _first_paragraph(function.get("description", ""))
    _shorten_fields(function.get("parameters", {}))
    return out


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n", 1)[0].strip()


def _shorten_fields(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        description = node.get("description")
        if isinstance(description, str):
            sentence = re.split(r"(?<=[.;:])\s", description.strip(), maxsplit=1)[0]
            node["description"] = sentence[:MAX_LEAN_FIELD_DESCRIPTION]
        for value in node.values():
            _shorten_fields(value)
    elif isinstance(node, list):
        for value in node:
            _shorten_fields(value)
