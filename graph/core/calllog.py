"""Reading a session's tool calls back: transcript order + journal status + live state."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from cairn.checkpoints import Store
from cairn.graph.core.state import ToolCallInfo, calls


def assemble_calls(
    store: Store, session_id: str, messages: list[BaseMessage], values: dict[str, Any]
) -> list[ToolCallInfo]:
    """The calls made in ``messages``, in the model's order, with their lifecycle status."""
    live = {c.call_id: c for c in calls(values.get("pending_tool_calls"))}
    live.update({c.call_id: c for c in calls(values.get("completed_tool_calls"))})
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    ordered = [
        (tc["id"], tc["name"], tc.get("args") or {})
        for m in messages
        if isinstance(m, AIMessage)
        for tc in m.tool_calls
    ]
    journal = store.journal.get_many(session_id, [cid for cid, _, _ in ordered])
    out: list[ToolCallInfo] = []
    for call_id, name, args in ordered:
        if call_id in live:
            out.append(live[call_id])
            continue
        entry = journal.get(call_id)
        message = results.get(call_id)
        text = message.content if message is not None and isinstance(message.content, str) else None
        if entry is None:
            ok = message is not None and message.status != "error"
            out.append(
                ToolCallInfo(
                    call_id=call_id,
                    tool_name=name,
                    arguments=args,
                    status="success" if ok else "error",
                    result=text if ok else None,
                    error_msg=None if ok else text,
                )
            )
            continue
        details = entry.details or {}
        status = entry.status if entry.status in ("success", "error", "cancelled") else "error"
        out.append(
            ToolCallInfo(
                call_id=call_id,
                tool_name=entry.tool_name,
                arguments=entry.arguments,
                status=status,
                result=text if status == "success" else None,
                error_msg=entry.error_msg or (text if status != "success" else None),
                risk=entry.risk,
                reason=entry.reason,
                display=entry.summary,
                metadata=details.get("metadata") or {},
                decision=details.get("decision"),
                original_arguments=details.get("original_arguments"),
                preview=details.get("preview"),
                attempt=details.get("attempt") or 0,
                sandbox=details.get("sandbox"),
                network=details.get("network"),
                hooks=details.get("hooks") or [],  # -- hooks (issue 32)
            )
        )
    return out


def session_tool_calls(store: Store, session_id: str, values: dict[str, Any]) -> list[ToolCallInfo]:
    """Every call of the session (``Session.tool_calls()``), given its current state values."""
    history = store.transcript.read(session_id, values.get("head"))
    return assemble_calls(store, session_id, history, values)
