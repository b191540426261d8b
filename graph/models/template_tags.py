"""Chat-template tokens that leak into small models' answers, removed before anyone reads them.

``<tool_response>…</tool_response>`` blocks are the model imagining a tool's answer, and
``<session-context>…</session-context>`` blocks are it echoing what cairn told it: they go whole.  Stray ``<tool_call>`` or ``<tools>`` tags and special tokens such as ``<|im_end|>`` go alone.
"""

from __future__ import annotations

import re

_IMAGINED = re.compile(r"<tool_response>.*?(?:</tool_response>|\Z)", re.DOTALL)
#: cairn's own block at the top of the first user message (cairn.graph.core.prompts), which small
#: models echo back at the start of a reply (seen from Qwen2.5-Coder-1.5B on llama.cpp).
_ECHOED = re.compile(r"<session-context>.*?(?:</session-context>|\Z)", re.DOTALL)
_TAGS = re.compile(
    r"</?tool_calls?>|</?tools>|</?tool_response>|<\|(?:im_start|im_end|im_sep|eot_id|end|endoftext|"
    r"start_header_id|end_header_id|assistant|user|system|tool_call|python_tag)\|>(?:assistant\b|user\b)?"
)


def strip_template_tags(text: str) -> str:
    if "<" not in text:
        return text
    cleaned = _TAGS.sub("", _IMAGINED.sub("", _ECHOED.sub("", text)))
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip() if cleaned != text else text
