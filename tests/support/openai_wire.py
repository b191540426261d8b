"""OpenAI chat-completions wire format for a script turn: response bodies, stream events, errors.

Pure functions (no I/O) so they can be tested and reused apart from the HTTP server.
"""

from __future__ import annotations

from typing import Any

from cairn.graph.models.script import (
    ScriptTurn,
    count_words,
    is_summary_request,
    split_tokens,
    summarized_assistant_count,
)

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}


def count_request_tokens(body: dict[str, Any]) -> int:
    """Words in every message's text content: a deterministic stand-in for prompt tokens."""
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            total += count_words(content)
        elif isinstance(content, list):
            total += sum(count_words(p.get("text", "")) for p in content if isinstance(p, dict))
    return total


def _text(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def count_assistant_messages(body: dict[str, Any]) -> int:
    """The script turn index a request asks for (assistant messages a compaction summary
    replaced count too)."""
    messages = body.get("messages") or []
    present = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
    return present + summarized_assistant_count([_text(m) for m in messages[:3]])


def is_summary_body(body: dict[str, Any]) -> bool:
    """Whether this request is cairn's compaction summary call (answered outside the script)."""
    messages = body.get("messages") or []
    return bool(messages) and is_summary_request(_text(messages[0]))


def context_length_error(limit: int, tokens: int) -> dict[str, Any]:
    """OpenAI's answer (HTTP 400) to a prompt longer than the model's window."""
    return {
        "error": {
            "message": f"This model's maximum context length is {limit} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def _usage(body: dict[str, Any], turn: ScriptTurn) -> dict[str, int]:
    prompt, completion = count_request_tokens(body), turn.output_tokens()
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _finish_reason(turn: ScriptTurn) -> str | None:
    return turn.finish_reason


def empty_choices_body(body: dict[str, Any], index: int) -> dict[str, Any]:
    """A ``chat.completion`` without choices (what some servers send on an internal failure)."""
    return {
        "id": f"chatcmpl-scripted-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [],
        "usage": {"prompt_tokens": count_request_tokens(body), "completion_tokens": 0, "total_tokens": 0},
    }


def empty_choices_events(body: dict[str, Any], index: int) -> list[dict[str, Any]]:
    """The stream of an answer without choices: one chunk, ``choices: []`` (with usage if asked)."""
    chunk = {**empty_choices_body(body, index), "object": "chat.completion.chunk"}
    if not (body.get("stream_options") or {}).get("include_usage"):
        chunk.pop("usage")
    return [chunk]


def completion_body(body: dict[str, Any], turn: ScriptTurn, index: int) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` answering ``body`` with ``turn``."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text}}
            for c in turn.tool_calls
        ]
    return {
        "id": f"chatcmpl-scripted-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "scripted"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": _finish_reason(turn), "logprobs": None}
        ],
        "usage": _usage(body, turn),
    }


def _split_in_three(text: str) -> list[str]:
    """Arguments arrive in several deltas on the real API; cut them so clients must reassemble."""
    if len(text) < 3:
        return [text]
    third = len(text) // 3
    return [text[:third], text[third : 2 * third], text[2 * third :]]


def stream_events(body: dict[str, Any], turn: ScriptTurn, index: int) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` events of a streamed answer, in order (without ``[DONE]``)."""
    include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
    base = {
        "id": f"chatcmpl-scripted-{index}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", "scripted"),
    }

    def event(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        chunk = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
        if include_usage:
            chunk["usage"] = None
        return chunk

    events = [event({"role": "assistant", "content": ""})]
    events += [event({"reasoning_content": piece}) for piece in split_tokens(turn.reasoning)]
    events += [event({"content": piece}) for piece in turn.stream_pieces()]
    for i, call in enumerate(turn.tool_calls):
        head = {
            "index": i,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(event({"tool_calls": [head]}))
        text = call.arguments_text
        pieces = (
            [text[j : j + turn.arg_delta] for j in range(0, len(text), turn.arg_delta)]
            if turn.arg_delta > 0
            else _split_in_three(text)
        )
        for piece in pieces:
            events.append(event({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    if turn.cut:  # the stream ends here: no finish reason, no usage (the server sends no [DONE])
        return events
    events.append(event({}, _finish_reason(turn)))
    if include_usage:
        events.append({**base, "choices": [], "usage": _usage(body, turn)})
    return events


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def find_dangling_tool_calls(request_body: dict[str, Any]) -> list[str]:
    """Ids of assistant tool calls not answered by a tool message right after them.

    The OpenAI API rejects (HTTP 400) a request where an assistant message's tool calls are not
    each followed by a ``role: tool`` message with that ``tool_call_id`` before the next
    non-tool message.  An empty list means the request is well formed in that respect.
    """
    messages = [m for m in request_body.get("messages") or [] if isinstance(m, dict)]
    dangling: list[str] = []
    for i, message in enumerate(messages):
        if message.get("role") != "assistant" or not message.get("tool_calls"):
            continue
        answered = set()
        for later in messages[i + 1 :]:
            if later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        dangling += [c.get("id") for c in message["tool_calls"] if c.get("id") not in answered]
    return dangling


def find_orphan_tool_messages(request_body: dict[str, Any]) -> list[str]:
    """``tool_call_id``s of tool messages answering no (or an already answered) call just before them."""
    orphans: list[str] = []
    open_ids: set[str] = set()
    for message in request_body.get("messages") or []:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            open_ids = {c.get("id") for c in message.get("tool_calls") or []}
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id in open_ids:
                open_ids.discard(call_id)  # a second answer to the same call is an orphan too
            else:
                orphans.append(call_id)
        else:
            open_ids = set()
    return orphans
