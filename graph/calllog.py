"""Reading a session's tool calls back: transcript order + journal status + live state."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from graph.state import ToolCallInfo, calls

if TYPE_CHECKING:
    from graph.session import Session

#: Metadata larger than this (serialized) is not kept in the call log, key by key.
MAX_DETAIL_VALUE = 64_000
_NEVER_KEPT = ("state", "image")


def call_details(call: ToolCallInfo) -> dict[str, Any]:
    """What the call log keeps for people beyond status and summary (diff, decision...)."""
    metadata: dict[str, Any] = {}
    for key, value in call.metadata.items():
        if key in _NEVER_KEPT:
            continue
        try:
            if len(json.dumps(value, default=str)) <= MAX_DETAIL_VALUE:
                metadata[key] = value
        except (TypeError, ValueError):
            continue
    details: dict[str, Any] = {"metadata": metadata}
    for key in ("decision", "original_arguments", "preview", "attempt"):
        value = getattr(call, key)
        if value:
            details[key] = value
    return details


def assemble_calls(
    session: Session, messages: list[BaseMessage], values: dict[str, Any]
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
    journal = session.store.journal.get_many(session.id, [cid for cid, _, _ in ordered])
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
            )
        )
    return out


def session_tool_calls(session: Session) -> list[ToolCallInfo]:
    """Every call of the session (``Session.tool_calls()``)."""
    values = session._snapshot().values
    history = session.store.transcript.read(session.id, values.get("head"))
    return assemble_calls(session, history, values)
