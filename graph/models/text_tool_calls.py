"""Recover tool calls that a model printed as JSON text instead of sending structured calls.

Small local models (through Ollama, llama.cpp, vLLM without a tool parser) often answer
``{"name": "read_file", "arguments": {"path": "a.py"}}``, maybe inside a ```json fence or Hermes-style
``<tool_call>`` tags, instead of a real tool call.  When such a reply has no structured calls and the
JSON names a registered tool, we treat it as the call it was meant to be.

Only whole values are accepted: the entire reply (also once lines that are only fence markers are
dropped: fences that do not pair up), a fenced block, or a ``<tool_call>`` (or
``<tools>``, ``<tool_calls>``, ``<function_call>``) block, or the first of several calls written one
after another;
in JSON or the near-JSON small models write (``near_json``: doubled braces, trailing commas, single
quotes).  A JSON object in the middle of prose is left alone (too likely to be an example the model
is explaining), as is any block that names an unknown tool or carries keys a tool call would not
have.  A block that names a known tool but cannot be parsed (an expression where a value should
be) becomes an *invalid* tool call, so the model is told what to fix instead of the block being
taken as its final answer.  Template tags (``<tool_call>``, ``<|im_end|>``...) are removed from
whatever text remains.  Calls written as XML tags (``<function><name>grep</name>...``) are
recovered too (``xml_tool_calls``).  Of several calls written as text only the first runs: the
later ones were written before the first one's result was seen.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from cairn.graph.models.near_json import NearJsonError, loads_near_json
from cairn.graph.models.template_tags import strip_template_tags
from cairn.graph.models.xml_tool_calls import extract_xml_calls

if TYPE_CHECKING:
    from langchain_core.messages import AIMessage

#: Tags small models wrap a call in: Hermes ``<tool_call>``, and ``<tools>`` and
#: ``<tool_response>`` copied from Qwen's chat template (where they wrap the tool signatures and
#: the results), seen from Qwen2.5-Coder-1.5B on llama.cpp.  Only a block that holds a call is one.
_BLOCK = re.compile(
    r"```[ \t]*(?:json|JSON|tool_calls?|tool_code)?[ \t]*\n?(?P<fenced>.*?)```"
    r"|<(?P<tag>tool_calls?|tools|function_calls?|tool_response)>(?P<tagged>.*?)</(?P=tag)>",
    re.DOTALL,
)
#: A fence that opens on a call and never closes (the reply ended inside it).
_UNCLOSED_FENCE = re.compile(
    r"```[ \t]*(?:json|JSON|tool_calls?|tool_code)?[ \t]*\n(?P<body>\{(?:(?!```).)*)\Z", re.DOTALL
)
#: A line that is only a fence marker (```, ```json ...).
_FENCE_LINE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$", re.MULTILINE)
_ARG_KEYS = ("arguments", "parameters", "args")
_NAMED = re.compile(r"""["']name["']\s*:\s*["']([A-Za-z0-9_.:-]+)["']""")
PARSE_ERROR = (
    "the tool call is not valid JSON: arguments must be literal JSON values (strings in double "
    "quotes, numbers, true/false/null, objects, lists), not expressions or comments"
)
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
    text = _text_of(message.content)
    if (
        message.tool_calls
        or message.invalid_tool_calls
        or not names
        or text is None
        or not ("{" in text or "<" in text)
    ):
        return _cleaned(message, text)
    if id_prefix is None:
        digest = hashlib.sha256(f"{message.id}\0{text}".encode()).hexdigest()[:8]
        id_prefix = f"call_text_{digest}"
    found = _extract(text, names) if "{" in text else None
    if found is None:
        found = extract_xml_calls(text, names)
    if found is None:
        broken = _unparsable_call(text, names)
        if broken is None:
            return _cleaned(message, text)
        name, raw = broken
        invalid = [
            {
                "name": name,
                "args": raw[:2000],
                "id": f"{id_prefix}_0",
                "error": PARSE_ERROR,
                "type": "invalid_tool_call",
            }
        ]
        return message.model_copy(update={"content": "", "invalid_tool_calls": invalid})
    calls, remaining = found
    # One at a time: a small model writes its next calls before it has seen the first one's
    # result (an edit of lines it never read, a file made up in a directory that is not there);
    # it writes them again, better, once it has.
    tool_calls = [
        {"name": name, "args": args, "id": f"{id_prefix}_{i}", "type": "tool_call"}
        for i, (name, args) in enumerate(calls[:1])
    ]
    return message.model_copy(update={"content": strip_template_tags(remaining), "tool_calls": tool_calls})


def _cleaned(message: AIMessage, text: str | None) -> AIMessage:
    if text is None or not isinstance(message.content, str):
        return message
    clean = strip_template_tags(text)
    return message if clean == text else message.model_copy(update={"content": clean})


def _unparsable_call(text: str, names: frozenset[str]) -> tuple[str, str] | None:
    """A whole reply, fenced or tagged block that names a known tool yet could not be parsed."""
    bodies = [text.strip()]
    for match in _BLOCK.finditer(text):
        body = match.group("fenced") if match.group("fenced") is not None else match.group("tagged")
        bodies.append(body.strip())
    for body in bodies:
        if not body.startswith(("{", "[")) or _parses(body):
            continue  # a value that parses but is not a call (extra keys...) stays text
        named = _NAMED.search(body)
        if named and named.group(1).lower() in names:
            return named.group(1), body
    return None


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
    if whole is None and "```" in text:  # fences that do not pair up: "```\n```\n{call}\n```"
        whole = _parse_calls(_FENCE_LINE.sub("", text).strip(), names)
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
        return _leading_call(text, names)
    kept.append(text[last:])
    remaining = re.sub(r"\n{3,}", "\n\n", "".join(kept)).strip()
    return calls, remaining


def _leading_call(text: str, names: frozenset[str]) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    """The first call of a reply that writes several calls one after another, or a call followed
    by more text, when that first call is whole: it alone, and the text before it.

    Qwen2.5-Coder-1.5B writes ``{read_file …}`` ``{edit_file …}`` ``{write_file …}`` in one reply,
    the later ones made up before it saw the first one's result (an edit of a line it never read,
    a changelog with a version it guessed), or a call and then what it imagines the result is.
    Only the first call runs; the model writes the next one when it has seen the result."""
    candidates = [(text.lstrip(), "")]
    for match in _BLOCK.finditer(text):
        body = match.group("fenced") if match.group("fenced") is not None else match.group("tagged")
        candidates.append((body.lstrip(), text[: match.start()]))
    unclosed = _UNCLOSED_FENCE.search(text)
    if unclosed:
        candidates.append((unclosed.group("body"), text[: unclosed.start()]))
    for body, before in candidates:
        first = _first_object(body)
        parsed = _parse_calls(first, names) if first else None
        if parsed:
            return parsed, before.strip()
    return None


def _first_object(body: str) -> str | None:
    """The balanced ``{…}`` that ``body`` starts with (strings and escapes respected), if any."""
    if not body.startswith("{"):
        return None
    depth, in_string, escaped = 0, False, False
    for index, char in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return body[: index + 1]
    return None


def _parses(body: str) -> bool:
    try:
        loads_near_json(body)
    except NearJsonError:
        return False
    return True


def _parse_calls(body: str, names: frozenset[str]) -> list[tuple[str, dict[str, Any]]] | None:
    """All calls in a JSON value (an object or a list of them), or ``None`` if any is not a call."""
    if not body.startswith(("{", "[")):
        return None
    try:
        value = loads_near_json(body)
    except NearJsonError:
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
            args = loads_near_json(args) if args.strip() else {}
        except NearJsonError:
            return None
    return (name, args) if isinstance(args, dict) else None
