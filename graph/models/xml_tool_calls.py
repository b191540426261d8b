"""Tool calls that a small model wrote as XML tags instead of JSON.

Besides the JSON forms ``text_tool_calls`` recovers, small models write a call in the XML shapes
they saw in other chat templates or in the tool schemas themselves.  Seen from
Qwen2.5-Coder-1.5B on llama.cpp (issue 31), as the whole reply::

    <function>
      <name>grep</name>
      <arguments>
        <properties>
          <pattern>parse_duration</pattern>
        </properties>
      </arguments>
    </function>

Recovered shapes, each only when it names a known tool:

- ``<function>`` (or ``<tool_call>``, ``<function_call>``, ``<invoke>``) holding ``<name>NAME</name>``
  (then maybe a copied ``<description>``) and ``<arguments>`` / ``<parameters>`` / ``<args>``,
  whose children are ``<key>value</key>`` or a JSON object (a ``<properties>`` child, or a single
  wrapper named like a schema word, is looked through: the schema's shape around the values);
- ``<function=NAME><parameter=key>value</parameter>...</function>`` (Qwen3-Coder's template);
- ``<invoke name="NAME"><parameter name="key">value</parameter>...</invoke>``.

Values are text (a JSON number, boolean or object where the text is one); the tool's argument
validation converts and checks them as for any call.
"""

from __future__ import annotations

import json
import re
from typing import Any

_OUTER = r"function|tool_call|function_call|invoke"
#: ``<function> <name>grep</name> <arguments>...</arguments> </function>``
_NAMED_BLOCK = re.compile(
    rf"<(?P<outer>{_OUTER})>\s*<name>\s*(?P<name>[A-Za-z0-9_.:-]+)\s*</name>\s*"
    r"(?:<description>.*?</description>\s*)?"
    r"(?:<(?P<argtag>arguments|parameters|args)>(?P<body>.*?)</(?P=argtag)>\s*)?"
    r"</(?P=outer)>",
    re.DOTALL,
)
#: ``<function=grep> <parameter=pattern>x</parameter> </function>``
_EQUALS_BLOCK = re.compile(
    r"<function=(?P<name>[A-Za-z0-9_.:-]+)>(?P<body>.*?)</function>",
    re.DOTALL,
)
_EQUALS_PARAM = re.compile(
    r"<parameter=(?P<key>[A-Za-z_][A-Za-z0-9_]*)>(?P<value>.*?)</parameter>", re.DOTALL
)
#: ``<invoke name="grep"> <parameter name="pattern">x</parameter> </invoke>``
_INVOKE_BLOCK = re.compile(
    r"""<invoke\s+name=["'](?P<name>[A-Za-z0-9_.:-]+)["']\s*>(?P<body>.*?)</invoke>""",
    re.DOTALL,
)
_NAME_PARAM = re.compile(
    r"""<parameter\s+name=["'](?P<key>[A-Za-z_][A-Za-z0-9_]*)["']\s*>(?P<value>.*?)</parameter>""",
    re.DOTALL,
)
_CHILD = re.compile(r"<(?P<key>[A-Za-z_][A-Za-z0-9_]*)>(?P<value>.*?)</(?P=key)>", re.DOTALL)
#: Wrappers copied from the JSON schema, looked through when they are the only child.
_SCHEMA_WORDS = frozenset({"properties", "parameters", "arguments", "args"})
#: Around a call: the tags some templates wrap it in (removed with the call).
_WRAPPERS = re.compile(r"</?(?:tool_calls?|function_calls)>")


def extract_xml_calls(
    text: str, names: frozenset[str]
) -> tuple[list[tuple[str, dict[str, Any]]], str] | None:
    """``(calls, remaining text)`` for the XML calls in ``text`` to tools in ``names`` (lower
    case), or ``None`` when there are none or a block names an unknown tool."""
    if "<" not in text:
        return None
    spans: list[tuple[int, int, str, dict[str, Any]]] = []
    for pattern, parse in (
        (_NAMED_BLOCK, _named_args),
        (_EQUALS_BLOCK, _params(_EQUALS_PARAM)),
        (_INVOKE_BLOCK, _params(_NAME_PARAM)),
    ):
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end, *_ in spans):
                continue  # already taken by an earlier shape
            name = match.group("name")
            if name.lower() not in names:
                return None
            args = parse(match.group("body") or "")
            if args is None:
                return None
            spans.append((match.start(), match.end(), name, args))
    if not spans:
        return None
    spans.sort()
    kept, last = [], 0
    for start, end, *_ in spans:
        kept.append(text[last:start])
        last = end
    kept.append(text[last:])
    remaining = re.sub(r"\n{3,}", "\n\n", _WRAPPERS.sub("", "".join(kept))).strip()
    return [(name, args) for _, _, name, args in spans], remaining


def _named_args(body: str) -> dict[str, Any] | None:
    body = body.strip()
    if not body:
        return {}
    if body.startswith("{"):
        try:
            value = json.loads(body)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    children = _children(body)
    if children is None:
        return None
    wrapper = "properties" if "properties" in children else None
    if wrapper is None and len(children) == 1:
        (key,) = children
        wrapper = key if key.lower() in _SCHEMA_WORDS else None
    if wrapper is not None:  # the schema's shape copied around the values: look through it
        inner = _children(children[wrapper].strip())
        if inner:
            children = inner
    return {key: _value(value) for key, value in children.items()}


def _children(body: str) -> dict[str, str] | None:
    """``<key>value</key>`` children covering ``body`` (whitespace between them), else ``None``."""
    found: dict[str, str] = {}
    last = 0
    for match in _CHILD.finditer(body):
        if body[last : match.start()].strip():
            return None
        found[match.group("key")] = match.group("value")
        last = match.end()
    if body[last:].strip() or not found:
        return None
    return found


def _params(pattern: re.Pattern[str]) -> Any:
    def parse(body: str) -> dict[str, Any] | None:
        found, last = {}, 0
        for match in pattern.finditer(body):
            if body[last : match.start()].strip():
                return None
            found[match.group("key")] = _value(match.group("value"))
            last = match.end()
        return None if body[last:].strip() else found

    return parse


def _value(raw: str) -> Any:
    """A parameter's value: the text without the newline a tag's line break adds around it; a
    JSON number, boolean, null, list or object when the whole text is one."""
    text = raw[1:] if raw.startswith("\n") else raw
    text = text[:-1] if text.endswith("\n") else text
    stripped = text.strip()
    if (
        stripped in ("true", "false", "null")
        or stripped[:1] in ("[", "{")
        or re.fullmatch(r"-?\d+", stripped)
    ):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    if "\n" not in stripped:
        return stripped  # a one-line value: its indentation is the XML's, not the value's
    return text
