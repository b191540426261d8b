"""``reasoning``: one model call with the active tools bound.

Appends the AIMessage to the transcript and turns its tool calls into
``pending`` ToolCallInfos.  Calls that cannot run at all (malformed JSON,
unknown tool, invalid arguments) are answered at once with an error result the
model can act on; the policy never sees them.

A turn the model did not finish (``finish_reason: "length"``, a stream cut short:
``cairn.graph.models.turn_end``) is never executed as complete: each of its calls is
answered at once with an error telling the model it was cut off and to send it again,
smaller if needed; a cut answer without calls ends the run ``incomplete`` (``/continue``
asks the model again).

Small models (issue 31): every call carries an output-token cap and a time budget
(``cairn.graph.models.call_limits``); a reply that starts repeating the prompt is cut while it
streams (``cairn.graph.models.runaway``), the model is told and asked once more, then the run
pauses ``incomplete``; a call over its time budget is retried once with another seed and
temperature, never unchanged; an empty final answer gets one nudge (the question and what the
tools found), then the run ends ``no_answer``.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
import uuid
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import add_ai_message_chunks
from langgraph.runtime import Runtime

from cairn.graph.core.agent_reports import undelivered_reports
from cairn.graph.core.compaction import prepare as compaction
from cairn.graph.core.context import AgentContext
from cairn.graph.core.cost.spend import after_model, over_budget
from cairn.graph.core.events import Message, Token, ToolEnd
from cairn.graph.core.messages import message_text
from cairn.graph.core.state import AgentState, ToolCallInfo, dump_calls
from cairn.graph.core.tool_selection import activate_called
from cairn.tools.base import ToolResult


def reasoning(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    mode = ctx.mode
    if state.get("run_steps", 0) >= ctx.max_steps:
        return {"paused": "max_steps", "pending_tool_calls": [], "completed_tool_calls": []}
    spent = _tokens(state)
    if ctx.max_tokens is not None and spent >= ctx.max_tokens:
        why = f"its token budget of {ctx.max_tokens} is spent ({spent} tokens)"
        return {
            "paused": "max_steps",
            "pause_reason": why,
            "pending_tool_calls": [],
            "completed_tool_calls": [],
        }
    budget_pause = over_budget(state, ctx)  # issue 34 hook-in: a run's money budget
    if budget_pause is not None:
        return budget_pause
    if state.get("paused") == "loop":  # tool_routing noticed a loop: the person decides
        return {"paused": "loop", "pending_tool_calls": [], "completed_tool_calls": []}
    if ctx.cancel.is_set():  # stopped between steps: do not spend a model call
        return {"paused": "stopped", "pending_tool_calls": [], "completed_tool_calls": []}
    head = state.get("head")
    recent = ctx.store.transcript.tail(ctx.thread_id, head, stop=lambda m: isinstance(m, AIMessage))
    unanswered = dangling_tool_messages(recent)
    if unanswered:
        head = ctx.store.transcript.append(ctx.thread_id, head, unanswered)
    # Finished background sub-agents report before this model call; the delivered ids are
    # checkpointed with the new head, so each report is delivered exactly once.
    delivered = list(state.get("delivered_agents") or [])
    reports = undelivered_reports(ctx.store, ctx.thread_id, delivered)
    if reports:
        head = ctx.store.transcript.append(ctx.thread_id, head, [m for _, m in reports])
        delivered += [child_id for child_id, _ in reports]
    system: list[BaseMessage] = []
    if ctx.system_prompt is not None:
        system.append(SystemMessage(ctx.system_prompt(mode)))
    # Context budget (cairn.graph.core.compaction): the prompt as sent, or a compaction first.
    prepared = compaction.prepare_prompt(state, ctx, head, system)
    if prepared.compact is not None:
        return {
            "head": head,
            "context": prepared.context,
            "compact_request": prepared.compact,
            "delivered_agents": delivered,
        }
    activated = list(state.get("activated_tools") or [])
    model = ctx.bound_model(mode, activated)
    # issue 34 hook-in: the model call's ``chat`` span (None when telemetry is off)
    traced = ctx.telemetry.model_call(ctx.model, prepared.messages) if ctx.telemetry is not None else None
    try:
        message, stopped, failed = _reply(model, prepared.messages, ctx)
    except Exception as exc:
        if traced is not None:
            traced.fail(exc)
        retry = compaction.on_model_error(prepared, exc)
        if retry is None:
            raise
        return {"head": head, "delivered_agents": delivered, **retry}
    if traced is not None:
        traced.end(message, ctx.pricing)
    if failed is not None:  # (issue 31) echoed the prompt twice, or no answer even after a nudge
        counters = dict(state.get("counters") or {})
        counters["model_calls"] = counters.get("model_calls", 0) + 1
        return {
            "counters": counters,
            "head": head,
            "paused": failed[0],
            "pause_reason": failed[1],
            "pending_tool_calls": [],
            "completed_tool_calls": [],
            "run_steps": state.get("run_steps", 0) + 1,
            "delivered_agents": delivered,
        }
    from cairn.graph.models import recover_text_tool_calls
    from cairn.graph.models.turn_end import cut_off

    active = ctx.active_registry(mode)
    cut = None if stopped else cut_off(message, ctx.model)
    if stopped:
        # A reply cut off by the person: keep the text they saw, never its half-sent tool calls.
        if not message_text(message).strip():
            return {
                "paused": "stopped",
                "head": head,
                "pending_tool_calls": [],
                "completed_tool_calls": [],
                "delivered_agents": delivered,
            }
        message = AIMessage(content=message.content, usage_metadata=message.usage_metadata)
        pending, completed = [], []
    elif cut is not None:
        message, completed = _cut_calls(message, ctx, cut)
        pending = []
    else:
        message = recover_text_tool_calls(message, active.names_and_aliases())
        message, pending, completed = _plan_calls(message, ctx, mode)
        activated = activate_called(pending, ctx, mode, activated) or activated
    head = ctx.store.transcript.append(ctx.thread_id, head, [message])
    ctx.emit(
        Message(
            text=message_text(message),
            tool_calls=len(pending) + len(completed),
            call_ids=[c["id"] for c in message.tool_calls],  # the model's order, for surfaces to keep
        )
    )
    # (R2, issue 28) calls answered here (refused in plan mode, invalid, cut off) never reach
    # tool_execution: surfaces get their tool_end now, or the live CLI shows no line for them.
    for call in completed:
        ctx.emit(ToolEnd(call.to_state()))
    counters = dict(state.get("counters") or {})
    counters["model_calls"] = counters.get("model_calls", 0) + 1
    usage = getattr(message, "usage_metadata", None) or {}
    counters["tokens_in"] = counters.get("tokens_in", 0) + int(usage.get("input_tokens", 0) or 0)
    counters["tokens_out"] = counters.get("tokens_out", 0) + int(usage.get("output_tokens", 0) or 0)
    return {
        "head": head,
        "pending_tool_calls": dump_calls(pending),
        "completed_tool_calls": dump_calls(completed),
        "run_steps": state.get("run_steps", 0) + 1,
        "counters": counters,
        "paused": "stopped" if stopped else ("incomplete" if cut is not None and not completed else None),
        "pause_reason": cut if cut is not None and not completed else None,
        "activated_tools": activated,
        "context": compaction.after_model(prepared, usage),
        "delivered_agents": delivered,
        **after_model(state, ctx, message),  # issue 34 hook-in: the call's usage in the ledgers
    }


def _tokens(state: AgentState) -> int:
    counters = state.get("counters") or {}
    return int(counters.get("tokens_in", 0)) + int(counters.get("tokens_out", 0))


def dangling_tool_messages(history: list[BaseMessage]) -> list[ToolMessage]:
    """Error ToolMessages for calls of the last AIMessage that have none.

    Observation always answers every call, so this only fires when a run was
    abandoned half-way (e.g. a person sent a new message instead of deciding);
    it keeps invariant 3: no model request ever carries an unanswered call.
    """
    answered: set[str] = set()
    for message in reversed(history):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AIMessage):
            return [
                ToolMessage(
                    content="Error: this call was abandoned before it produced a result.",
                    tool_call_id=tc["id"],
                    name=tc["name"],
                    status="error",
                )
                for tc in message.tool_calls
                if tc["id"] not in answered
            ]
    return []


def _reply(
    model: Any, prompt: list[BaseMessage], ctx: AgentContext
) -> tuple[AIMessage, bool, tuple[str, str] | None]:
    """The model's reply, whether the person stopped it, and (pause, why) when the run must pause.

    At most one extra call for each failure: an echo of the prompt (the model is told), a call
    over its time budget (another seed and temperature), an empty answer (the nudge)."""
    from cairn.graph.core.prompts import empty_reply_nudge
    from cairn.graph.models import call_limits as limits_of
    from cairn.graph.models.runaway import EchoGuard, RunawayReply, runaway_note
    from cairn.graph.models.turn_end import cut_off

    limits = ctx.call_limits or limits_of.call_limits()
    window = getattr(ctx.budget, "window", None)
    cap = limits_of.output_cap(limits, window, self_hosted=limits_of.is_self_hosted(ctx.model))
    model = limits_of.with_output_cap(ctx.model, model, cap)
    sent, echoed, resampled, nudged = prompt, False, False, False
    while True:
        guard = EchoGuard.for_request(prompt, model)
        try:
            message, stopped = _call_model(model, sent, ctx, guard, limits.call_timeout)
        except RunawayReply as exc:
            if echoed:
                why = f"the model's reply was cut twice because {exc.reason}; /continue asks it again"
                return AIMessage(content=""), False, ("incomplete", why)
            echoed, sent = True, [*prompt, HumanMessage(runaway_note(exc.reason))]
            continue
        except Exception as exc:
            if not _timed_out(exc):
                raise
            message = None
        if message is None:  # raised out here, so the timeout's own message is what people read
            if resampled:
                raise limits_of.ModelCallTimeout(limits.call_timeout)
            resampled, model = True, limits_of.with_new_sampling(ctx.model, model)
            continue
        if stopped or cut_off(message, ctx.model) is not None or not _empty(message, guard):
            return message, stopped, None
        if nudged:
            why = "the model's answer was empty, again after it was reminded of the question"
            return message, False, ("no_answer", f"{why}; /continue asks it again")
        nudged, sent = True, [*prompt, HumanMessage(empty_reply_nudge(prompt))]


def _empty(message: AIMessage, guard: Any) -> bool:
    """No call and no text (template tokens aside), or text that only restates the prompt."""
    from cairn.graph.models.template_tags import strip_template_tags

    if message.tool_calls or message.invalid_tool_calls:
        return False
    text = strip_template_tags(message_text(message)).strip()
    return not text or guard.check(text) is not None


class _CallTimedOut(TimeoutError):
    """This attempt ran past the call's time budget (abandoned)."""


def _timed_out(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return isinstance(exc, TimeoutError) or "APITimeoutError" in names


def _call_model(
    model: Any,
    prompt: list[BaseMessage],
    ctx: AgentContext,
    guard: Any = None,
    budget: float | None = None,
) -> tuple[AIMessage, bool]:
    """The model's reply, and whether the person stopped it.

    ``guard`` (a ``runaway.EchoGuard``) reads the text as it streams and ``budget`` bounds the
    call's seconds: either abandons the call (``RunawayReply``, ``_CallTimedOut``).

    The call runs on a worker thread so a stop (Ctrl-C) takes effect at once, even while a
    slow server has not sent its first token; the abandoned request finishes unseen.

    Chunks are merged once, when the reply ends: adding each chunk to the reply so far
    re-parsed every tool call's arguments so far (``AIMessageChunk.__add__``), quadratic in
    their length (a 64 KB argument in 16-byte deltas cost ~10 s of CPU).
    """
    from cairn.graph.models.runaway import RunawayReply

    inbox: queue.Queue[tuple[str, Any]] = queue.Queue()
    abandon = threading.Event()
    worker = threading.Thread(
        target=contextvars.copy_context().run,
        args=(_produce, model, prompt, ctx, inbox, abandon),
        daemon=True,
    )
    deadline = time.monotonic() + budget if budget else None
    worker.start()
    chunks: list[AIMessageChunk] = []
    while True:
        try:
            kind, value = inbox.get(timeout=0.05)
        except queue.Empty:
            if ctx.cancel.is_set():
                return _assemble(chunks), True
            if deadline is not None and time.monotonic() > deadline:
                abandon.set()
                raise _CallTimedOut() from None
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
            raise _CallTimedOut()


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


def _cut_calls(message: AIMessage, ctx: AgentContext, why: str) -> tuple[AIMessage, list[ToolCallInfo]]:
    """A cut-off turn's calls, none of them run: each answered by an error naming the cut.

    Their (possibly truncated) arguments are not kept: the model is asked to send the call again.
    """
    from cairn.graph.models.turn_end import cut_call_error

    named = [(c.get("name") or "(unnamed)", c.get("id")) for c in message.tool_calls]
    named += [(c.get("name") or "(unnamed)", c.get("id")) for c in message.invalid_tool_calls]
    if not named:
        return message, []
    ids = _unique_ids(ctx, [call_id for _, call_id in named])
    fixed = [
        {"name": name, "args": {}, "id": call_id, "type": "tool_call"}
        for (name, _), call_id in zip(named, ids, strict=True)
    ]
    completed = [
        _failed(call_id, name, {}, cut_call_error(name, why))
        for (name, _), call_id in zip(named, ids, strict=True)
    ]
    return message.model_copy(update={"tool_calls": fixed, "invalid_tool_calls": []}), completed


def _unique_ids(ctx: AgentContext, given: list[str | None]) -> list[str]:
    """Session-unique call ids: an id the model reuses, omits or cannot store is replaced."""
    from cairn.checkpoints.text_escape import needs_escape

    known = ctx.store.journal.get_many(ctx.thread_id, [i for i in given if i])
    seen: set[str] = set()
    out: list[str] = []
    for call_id in given:
        if not call_id or call_id in seen or call_id in known or needs_escape(call_id):
            call_id = f"call_{uuid.uuid4().hex[:16]}"
        seen.add(call_id)
        out.append(call_id)
    return out


def _plan_calls(
    message: AIMessage, ctx: AgentContext, mode: str
) -> tuple[AIMessage, list[ToolCallInfo], list[ToolCallInfo]]:
    """Give every call a session-unique id, validate it, and split into pending vs answered."""
    registry = ctx.active_registry(mode)
    pending: list[ToolCallInfo] = []
    completed: list[ToolCallInfo] = []
    fixed_calls = []
    # The journal is keyed by call id: an id the model reuses (or omits) must not adopt an
    # earlier call's result, so such ids are replaced by fresh ones.
    ids = iter(_unique_ids(ctx, [c.get("id") for c in [*message.tool_calls, *message.invalid_tool_calls]]))

    for call in message.tool_calls:
        call_id = next(ids)
        fixed_calls.append({**call, "id": call_id})
        name, args = call["name"], call.get("args") or {}
        checked = registry.validate(name, args)
        if isinstance(checked, ToolResult):
            if ctx.registry.get(name) is not None and registry.get(name) is None:
                checked = ToolResult.fail(
                    f"{name} is not available in plan mode: only tools that change nothing can be used. "
                    "Present your plan instead."
                )
            completed.append(_failed(call_id, name, args, checked.error or "invalid call"))
            continue
        tool, normalized = checked
        pending.append(ToolCallInfo(call_id=call_id, tool_name=tool.name, arguments=normalized))
    for bad in message.invalid_tool_calls:
        call_id = next(ids)
        name = bad.get("name") or "(unnamed)"
        error = (
            f"Your call to {name} could not be parsed: {bad.get('error') or 'arguments are not valid JSON'}. "
            f"Arguments received: {str(bad.get('args'))[:300]}. Send the call again with a valid JSON object."
        )
        completed.append(_failed(call_id, name, {}, error))
        fixed_calls.append({"name": name, "args": {}, "id": call_id, "type": "tool_call"})
    if fixed_calls:
        # Invalid calls become regular calls with empty args so every call id gets a ToolMessage
        # and the provider sees a consistent history.
        message = message.model_copy(update={"tool_calls": fixed_calls, "invalid_tool_calls": []})
    return message, pending, completed


def _failed(call_id: str, name: str, args: dict[str, Any], error: str) -> ToolCallInfo:
    return ToolCallInfo(
        call_id=call_id,
        tool_name=name,
        arguments=args if isinstance(args, dict) else {},
        status="error",
        error_msg=error,
        display=error.splitlines()[0][:160],
    )
