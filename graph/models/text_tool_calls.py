"""Recover tool calls that a model printed as JSON text instead of sending structured calls.

Small local models (through Ollama, llama.cpp, vLLM without a tool parser) often answer
``{"name": "read_file", "arguments": {"path": "a.py"}}``, maybe inside a ```json fence or Hermes-style
``<tool_call>`` tags, instead of a real tool call.  When such a reply has no structured calls and the
JSON names a registered tool, we treat it as the call it was meant to be.

Only whole JSON values are accepted: the entire reply, a fenced block, or a ``<tool_call>`` block.
A JSON object in the middle of prose is left alone (too likely to be an example the model is
explaining), as is any block that names an unknown tool or carries keys a tool call would not have.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage

_BLOCK = re.compile(
    r"```[ \t]*(?:json|JSON|tool_calls?|tool_code)?[ \t]*\n?(?P<fenced>.*?)```"
    r"|<tool_call>(?P<tagged>.*?)</tool_call>",
    re.DOTALL,
)
_ARG_KEYS = ("arguments", "parameters", "args")
_ALLOWED_KEYS = {"name", "id", "type", *_ARG_KEYS}


def recover_text_tool_calls(
    message: AIMessage, tool_names: Collection[str], *, id_prefix: str | None = None
) -> AIMessage:
    """Return ``message`` with JSON-text tool calls turned into ``tool_calls``, or unchanged.

    ``tool_names`` should include aliases; matching ignores case and the call keeps the name the
    model wrote (the registry resolves aliases).

    Ids are ``<id_prefix>_<n>``; the default prefix is ``call_text_`` plus a short hash of the
    message id and text, so ids are deterministic yet differ between turns (the tool-call journal
    is keyed by call id within a session).  Never raises.
    """
    try:
        return _recover(message, frozenset(name.lower() for name in tool_names), id_prefix)
    except Exception:
        return message


def _recover(message: AIMessage, names: frozenset[str], id_prefix: str | None) -> AIMessage:
    if message.tool_calls or message.invalid_tool_calls or not names:
        return message
    text = _text_of(message.content)
    if text is None or "{" not in text:
        return message
    found = _extract(text, names)
    if found is None:
        return message
    calls, remaining = found
    if id_prefix is None:
        digest = hashlib.sha256(f"{message.id}\0{text}".encode()).hexdigest()[:8]
        id_prefix = f"call_text_{digest}"
    tool_calls = [
        {"name": name, "args": args, "id": f"{id_prefix}_{i}", "type": "tool_call"}
        for i, (name, args) in enumerate(calls)
    ]
    return message.model_copy(update={"content": remaining, "tool_calls": tool_calls})


def _text_of(content: Any) -> str | None:
    """The reply's text, or ``None`` if it holds anything but text (we would lose it)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        else:
            return None
    return "".join(parts)


def _extract(text: str, names: frozenset[str]) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    whole = _parse_calls(text.strip(), names)
    if whole is not None:
        return whole, ""
    calls: list[tuple[str, dict[str, Any]]] = []
    kept: list[str] = []
    last = 0
    for match in _BLOCK.finditer(text):
        body = match.group("fenced") if match.group("fenced") is not None else match.group("tagged")
        parsed = _parse_calls(body.strip(), names)
        if parsed is None:
            continue
        calls.extend(parsed)
        kept.append(text[last : match.start()])
        last = match.end()
    if not calls:
        return None
    kept.append(text[last:])
    remaining = re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip()
    return calls, remaining


def _parse_calls(body: str, names: frozenset[str]) -> list[tuple[str, dict[str, Any]]] | None:
    """All calls in a JSON value (an object or a list of them), or ``None`` if any is not a call."""
    if not body.startswith(("{", "[")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    items = value if isinstance(value, list) else [value]
    calls = [_as_call(item, names) for item in items]
    if not calls or any(call is None for call in calls):
        return None
    return calls  # type: ignore[return-value]


def _as_call(item: Any, names: frozenset[str]) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict) and set(item) <= {"function", "id", "type"}:
        item = item["function"]  # OpenAI wire shape: {"type": "function", "function": {...}}
    name = item.get("name")
    if not isinstance(name, str) or name.lower() not in names or not set(item) <= _ALLOWED_KEYS:
        return None
    present = [key for key in _ARG_KEYS if key in item]
    if len(present) > 1:
        return None
    args = item[present[0]] if present else {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    return (name, args) if isinstance(args, dict) else None
