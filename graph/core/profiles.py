"""Tool profiles: ``full`` (every tool, full descriptions) and ``lean`` for small local models
(the tools that declare the ``lean`` profile, ``Tool.profiles``, with short descriptions and a
compact system prompt).

Lean is chosen automatically when the model's context window is small (≤ 16k tokens); otherwise
``Session(tool_profile=…)``, ``--tools``, ``[tools] profile`` in the settings, or ``full``.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from cairn.errors import ConfigError

PROFILES = ("lean", "full")
#: A context window this small (tokens) gets the lean profile unless one is chosen explicitly.
SMALL_CONTEXT = 16_384
MAX_LEAN_FIELD_DESCRIPTION = 120


if TYPE_CHECKING:
    LEAN_TOOLS: tuple[str, ...]
    LEAN_FIELDS: dict[str, tuple[str, ...]]


def in_profile(tool: Any, profile: str) -> bool:
    """Whether ``profile`` offers ``tool`` (a tool's own ``profiles`` fact; ``full`` offers all)."""
    return profile == "full" or profile in getattr(tool, "profiles", ())


@lru_cache(maxsize=1)
def lean_tools() -> tuple[str, ...]:
    """The built-in tools of the lean profile, in the order the model sees them."""
    from cairn.tools import builtin_tool_classes

    return tuple(cls.name for cls in builtin_tool_classes() if in_profile(cls, "lean"))


@lru_cache(maxsize=1)
def _lean_fields() -> dict[str, tuple[str, ...]]:
    from cairn.tools import builtin_tool_classes

    return {cls.name: cls.lean_fields for cls in builtin_tool_classes() if cls.lean_fields}


def __getattr__(name: str) -> Any:
    """``LEAN_TOOLS`` and ``LEAN_FIELDS``: derived from the tools' ``profiles`` and ``lean_fields``."""
    if name == "LEAN_TOOLS":
        return lean_tools()
    if name == "LEAN_FIELDS":
        return dict(_lean_fields())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ProfileError(ConfigError):
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


def lean_schema(schema: dict[str, Any], fields: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A tool schema with its description cut to the first paragraph and field descriptions to a
    sentence; names, types, enums and required fields stay exactly as they are.  Only ``fields``
    (the tool's ``lean_fields``; by default the built-in tool's of that name) and the required
    ones are shown."""
    out = copy.deepcopy(schema)
    function = out["function"]
    function["description"] = _first_paragraph(function.get("description", ""))
    params = function.get("parameters", {})
    keep = fields if fields is not None else _lean_fields().get(function.get("name", ""))
    properties = params.get("properties")
    if keep and isinstance(properties, dict):
        required = set(params.get("required") or ())
        params["properties"] = {k: v for k, v in properties.items() if k in keep or k in required}
    params.pop("additionalProperties", None)
    _shorten_fields(params)
    return out


def _first_paragraph(text: str) -> str:
    """The first sentence of the first paragraph: the lean tools are ones every model knows."""
    return _first_sentence(text.strip().split("\n\n", 1)[0])


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[a-z0-9)`'\"]\.)\s+(?=[A-Z])", " ".join(text.split()), maxsplit=1)[0]


def _shorten_fields(node: Any) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        options = node.get("anyOf")
        if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
            node.update(next(o for o in options if o != {"type": "null"}))  # Optional[X] -> X
            del node["anyOf"]
        description = node.get("description")
        if isinstance(description, str):
            sentence = _first_sentence(description)
            if len(sentence) > MAX_LEAN_FIELD_DESCRIPTION:
                sentence = sentence[:MAX_LEAN_FIELD_DESCRIPTION].rsplit(" ", 1)[0] + " …"
            node["description"] = sentence
        for value in node.values():
            _shorten_fields(value)
    elif isinstance(node, list):
        for value in node:
            _shorten_fields(value)
