"""One model call on a worker thread: streamed tokens, a stop, a time budget, an echo guard.

Used by ``reasoning`` (``cairn.graph.nodes.reasoning``) for every model request.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import add_ai_message_chunks

from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import Thought, Token
from cairn.graph.core.messages import message_text
from cairn.graph.nodes import model_workers


class CallTimedOut(TimeoutError):
    """This attempt ran past the call's time budget (abandoned)."""


def timed_out(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(exc, TimeoutError) or "APITimeoutError" in names


def call_model(
    model: Any,
    prompt: list[BaseMessage],
    ctx: AgentContext,
    guard: Any = None,
    budget: float | None = None,
) -> tuple[AIMessage, bool]:
    """The model's reply, and whether the person stopped it.

    ``guard`` (a ``runaway.EchoGuard``) reads the text as it streams and ``budget`` bounds the
    call's seconds: either abandons the call (``RunawayReply``, ``CallTimedOut``).

    The call runs on a worker thread (``model_workers``) so a stop (Ctrl-C) takes effect at
    once, even while a slow server has not sent its first token; the abandoned request
    finishes unseen.

    Chunks are merged once, when the reply ends: adding each chunk to the reply so far
    re-parsed every tool call's arguments so far (``AIMessageChunk.__add__``), quadratic in
    their length (a 64 KB argument in 16-byte deltas cost ~10 s of CPU).
    """
    from cairn.graph.models.runaway import RunawayReply

    inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
    abandon = threading.Event()
    deadline = time.monotonic() + budget if budget else None
    model_workers.submit(contextvars.copy_context().run, _produce, model, prompt, ctx, inbox, abandon)
    chunks: list[AIMessageChunk] = []
    while True:
        try:
            kind, value = inbox.get(timeout=0.05)
        except queue.Empty:
            if ctx.cancel.is_set():
                return _assemble(chunks), True
            if deadline is not None and time.monotonic() > deadline:
                abandon.set()
                raise CallTimedOut() from None
            continue
        if kind == "error":
            raise value
        if kind == "reply":
            reply = value if isinstance(value, AIMessage) else AIMessage(content=str(value))
            why = guard.check(message_text(reply)) if guard is not None and not reply.tool_calls else None
            if why is not None:
                raise RunawayReply(why, len(message_text(reply)))
            return reply, False
        if kind == "end":
            return _assemble(chunks), ctx.cancel.is_set()
        text = value.content if isinstance(value.content, str) else ""
        thought = (value.additional_kwargs or {}).get("reasoning_content")
        if thought and isinstance(thought, str):
            ctx.emit(Thought(thought))
        if text:
            ctx.emit(Token(text))
        chunks.append(value)
        if ctx.cancel.is_set():
            return _assemble(chunks), True
        why = guard.feed(text) if guard is not None and text else None
        if why is not None:
            abandon.set()
            raise RunawayReply(why, guard.chars)
        if deadline is not None and time.monotonic() > deadline:
            abandon.set()
            raise CallTimedOut()


def _produce(
    model: Any, prompt: list[BaseMessage], ctx: AgentContext, inbox: queue.Queue, abandon: threading.Event
) -> None:
    try:
        if not ctx.stream:
            inbox.put(("reply", model.invoke(prompt)))
            return
        for chunk in model.stream(prompt):
            inbox.put(("chunk", chunk))
            if ctx.cancel.is_set() or abandon.is_set():
                break
        inbox.put(("end", None))
    except BaseException as exc:  # handed to the node's thread, which raises it
        inbox.put(("error", exc))


def _assemble(chunks: list[AIMessageChunk]) -> AIMessage:
    if not chunks:
        return AIMessage(content="")
    full = chunks[0] if len(chunks) == 1 else add_ai_message_chunks(chunks[0], *chunks[1:])
    return AIMessage(
        content=full.content,
        tool_calls=full.tool_calls,
        invalid_tool_calls=full.invalid_tool_calls,
        usage_metadata=full.usage_metadata,
        response_metadata=full.response_metadata,
        id=full.id,
    )
