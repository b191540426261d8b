"""``observation``: turn finished calls into ToolMessages and clear the turn's buffers.

Exactly one ToolMessage per call id of the last AIMessage, in the model's
order, bounded by the tool's output limit.  Images a tool returned (read_file
on a PNG) follow in one user message, because chat APIs accept only text in
tool messages.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

from cairn.graph.core import loops
from cairn.graph.core.call_details import call_details
from cairn.graph.core.compaction.spill import bound_output
from cairn.graph.core.context import AgentContext
from cairn.graph.core.state import AgentState, ToolCallInfo, calls
from cairn.tools.output import truncate_middle

DEFAULT_MAX_CHARS = 30_000


def observation(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    finished = {c.call_id: c for c in calls(state.get("completed_tool_calls"))}
    finished.update({c.call_id: c for c in calls(state.get("pending_tool_calls"))})
    history = ctx.store.transcript.tail(
        ctx.thread_id, state.get("head"), stop=lambda m: isinstance(m, AIMessage)
    )
    last_ai = next((m for m in reversed(history) if isinstance(m, AIMessage)), None)
    order = [tc["id"] for tc in (last_ai.tool_calls if last_ai else [])]
    answered = _answered_ids(history)
    messages: list[BaseMessage] = []
    images: list[dict[str, Any]] = []
    memory = state.get("loop_memory")
    records: list[tuple[str, tuple[Any, ...]]] = []  # committed with the ToolMessages, at once
    for call_id in order:
        if call_id in answered:
            continue
        call = finished.get(call_id)
        if call is None:  # should not happen; never leave a call unanswered
            call = ToolCallInfo(
                call_id=call_id,
                tool_name="unknown",
                status="error",
                error_msg="This call was lost before it ran; call the tool again.",
            )
        help_text, memory = loops.failure_help(call, memory)
        if help_text:
            call.error_msg = f"{call.error_msg}\n\nThis failed the same way as your last {call.tool_name} call. {help_text}"
        memory = loops.remember(call, memory, changing=_may_change_things(call, ctx))
        text, call_images = _content(call, ctx)
        images.extend(call_images)
        messages.append(
            ToolMessage(
                content=text,
                tool_call_id=call_id,
                name=call.tool_name,
                status="success" if call.status == "success" else "error",
            )
        )
        records.append(
            ctx.store.journal.record_statement(
                ctx.thread_id, {**call.to_state(), "summary": call.display}, details=call_details(call)
            )
        )
    if images:
        messages.append(
            HumanMessage(content=[{"type": "text", "text": "Images returned by the tools above:"}, *images])
        )
    head = ctx.store.transcript.append(ctx.thread_id, state.get("head"), messages, also=lambda _head: records)
    counters = dict(state.get("counters") or {})
    counters["tool_calls"] = counters.get("tool_calls", 0) + len(order)
    for call_id in order:  # model calls a tool made itself (web_fetch's page summary) count too
        usage = finished[call_id].metadata.get("usage") if call_id in finished else None
        if isinstance(usage, dict):
            counters["tokens_in"] = counters.get("tokens_in", 0) + int(usage.get("input_tokens") or 0)
            counters["tokens_out"] = counters.get("tokens_out", 0) + int(usage.get("output_tokens") or 0)
    update = {
        "head": head,
        "pending_tool_calls": [],
        "completed_tool_calls": [],
        "counters": counters,
    }
    streak, memory = loops.invalid_streak([finished[c] for c in order if c in finished], memory)
    if streak >= ctx.repeat_limit:  # the model cannot write a call that runs: the person decides
        memory["invalid_streak"] = 0
        update["paused"] = "loop"
        update["pause_reason"] = (
            f"the model's last {streak} replies held only calls that could not run (not valid JSON, "
            "or arguments missing); continue to let it go on"
        )
    return {**update, "loop_memory": memory}


def _may_change_things(call: ToolCallInfo, ctx: AgentContext) -> bool:
    """Read-only tools, and shell commands the policy judged read-only (LOW), change nothing."""
    tool = ctx.registry.get(call.tool_name)
    if tool is not None and tool.read_only:
        return False
    return not (call.tool_name == "bash" and call.risk == "LOW")


def _answered_ids(history: list[BaseMessage]) -> set[str]:
    ids: set[str] = set()
    for message in reversed(history):
        if isinstance(message, AIMessage):
            break
        if isinstance(message, ToolMessage):
            ids.add(message.tool_call_id)
    return ids


def _content(call: ToolCallInfo, ctx: AgentContext) -> tuple[str, list[dict[str, Any]]]:
    tool = ctx.registry.get(call.tool_name)
    limit = tool.max_output_chars if tool is not None else DEFAULT_MAX_CHARS
    images: list[dict[str, Any]] = []
    if call.status == "success":
        result = call.result
        if isinstance(result, list):
            texts = [b.get("text", "") for b in result if b.get("type") == "text"]
            images = [b for b in result if b.get("type") in ("image_url", "image")]
            result = "\n".join(texts)
        text = truncate_middle(bound_output(result or "(no output)", call, ctx.budget), limit)
    else:
        text = f"Error: {call.error_msg or 'the call failed'}"
    if call.note:
        text = f"Note: {call.note}\n\n{text}"
    if call.decision == "edited" and call.original_arguments is not None:
        text = (
            "Note: a person edited the arguments of this call before it ran. It ran with "
            f"{json.dumps(call.arguments)} instead of {json.dumps(call.original_arguments)}.\n\n{text}"
        )
    return text, images
