"""The model's tool calls made ready to run: session-unique ids, validated arguments, and
an error result at once for a call that cannot run (invalid, unknown, cut off, refused in plan mode).
"""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessage

from cairn.graph.core.context import AgentContext
from cairn.graph.core.state import ToolCallInfo
from cairn.tools.base import ToolResult


def cut_calls(message: AIMessage, ctx: AgentContext, why: str) -> tuple[AIMessage, list[ToolCallInfo]]:
    """A cut-off turn's calls, none of them run: each answered by an error naming the cut.

    Their (possibly truncated) arguments are not kept: the model is asked to send the call again.
    """
    from cairn.graph.models.turn_end import cut_call_error

    named = [(c.get("name") or "(unnamed)", c.get("id")) for c in message.tool_calls]
    named += [(c.get("name") or "(unnamed)", c.get("id")) for c in message.invalid_tool_calls]
    if not named:
        return message, []
    ids = unique_ids(ctx, [call_id for _, call_id in named])
    fixed = [
        {"name": name, "args": {}, "id": call_id, "type": "tool_call"}
        for (name, _), call_id in zip(named, ids, strict=True)
    ]
    completed = [
        failed_call(call_id, name, {}, cut_call_error(name, why))
        for (name, _), call_id in zip(named, ids, strict=True)
    ]
    return message.model_copy(update={"tool_calls": fixed, "invalid_tool_calls": []}), completed


def unique_ids(ctx: AgentContext, given: list[str | None]) -> list[str]:
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


def plan_calls(
    message: AIMessage, ctx: AgentContext, mode: str
) -> tuple[AIMessage, list[ToolCallInfo], list[ToolCallInfo]]:
    """Give every call a session-unique id, validate it, and split into pending vs answered."""
    registry = ctx.active_registry(mode)
    pending: list[ToolCallInfo] = []
    completed: list[ToolCallInfo] = []
    fixed_calls = []
    # The journal is keyed by call id: an id the model reuses (or omits) must not adopt an
    # earlier call's result, so such ids are replaced by fresh ones.
    ids = iter(unique_ids(ctx, [c.get("id") for c in [*message.tool_calls, *message.invalid_tool_calls]]))

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
            completed.append(failed_call(call_id, name, args, checked.error or "invalid call"))
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
        completed.append(failed_call(call_id, name, {}, error))
        fixed_calls.append({"name": name, "args": {}, "id": call_id, "type": "tool_call"})
    if fixed_calls:
        # Invalid calls become regular calls with empty args so every call id gets a ToolMessage
        # and the provider sees a consistent history.
        message = message.model_copy(update={"tool_calls": fixed_calls, "invalid_tool_calls": []})
    return message, pending, completed


def failed_call(call_id: str, name: str, args: dict[str, Any], error: str) -> ToolCallInfo:
    return ToolCallInfo(
        call_id=call_id,
        tool_name=name,
        arguments=args if isinstance(args, dict) else {},
        status="error",
        error_msg=error,
        display=error.splitlines()[0][:160],
        metadata={"invalid": True},  # answered before it could run (loops.invalid_streak counts these)
    )
