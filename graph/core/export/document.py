"""A session as one plain document (dicts and strings): what every export format renders."""

from __future__ import annotations

from typing import Any

from cairn.graph.core.calllog import assemble_calls
from cairn.graph.core.cost.report import session_cost
from cairn.graph.core.messages import is_person_message


def session_document(store: Any, session_id: str, pricing: Any = None) -> dict[str, Any]:
    record = store.sessions.get(session_id)
    if record is None:
        raise KeyError(session_id)
    saved = store.saver.get_tuple({"configurable": {"thread_id": session_id}})
    values = dict(saved.checkpoint["channel_values"]) if saved is not None else {}
    history = store.transcript.read(session_id, values.get("head"))
    calls = {c.call_id: c for c in assemble_calls(store, session_id, history, values)}
    messages: list[dict[str, Any]] = []
    for message in history:
        entry = _message(message)
        if entry["role"] == "assistant":
            entry["tool_calls"] = [
                _call(calls[c["id"]])
                if c["id"] in calls
                else {"call_id": c["id"], "tool_name": c["name"], "arguments": c.get("args") or {}}
                for c in getattr(message, "tool_calls", None) or []
            ]
        if entry["role"] != "tool":  # results are shown with their calls
            messages.append(entry)
    return {
        "session_id": session_id,
        "title": record.title,
        "workspace": record.workspace,
        "status": record.status,
        "mode": record.mode,
        "model": record.model,
        "parent_id": record.parent_id,
        "created_at": getattr(record, "created_at", None),
        "messages": messages,
        "cost": session_cost(store, session_id, values, pricing),
        "sub_agents": [c.session_id for c in store.sessions.children(session_id)],
    }


def _message(message: Any) -> dict[str, Any]:
    kind = message.type
    if kind == "human":
        role = "user" if is_person_message(message) else "tool-images"
    elif kind == "ai":
        role = "assistant"
    elif kind == "system":
        role = "note"  # a compaction marker or a harness note
    else:
        role = kind
    return {"role": role, "content": message.text}


def call_fields(call: Any) -> dict[str, Any]:
    """One tool call as JSON: what `cairn show --json` prints and the export builds on."""
    result = call.result if call.status == "success" else call.error_msg
    if isinstance(result, list):  # content blocks (images): their text parts
        result = "\n".join(b.get("text", f"[{b.get('type')}]") for b in result if isinstance(b, dict))
    return (
        {
            "call_id": call.call_id,
            "tool_name": call.tool_name,
            "arguments": call.arguments,
            "status": call.status,
            "risk": call.risk,
            "reason": call.reason,
            "result": result,
            "decision": call.decision,
            "sandbox": call.sandbox,
            "display": call.display,
        }
        | ({"network": call.network} if call.network else {})
        | ({"hooks": call.hooks} if call.hooks else {})
    )


def _call(call: Any) -> dict[str, Any]:
    out = call_fields(call)
    if call.original_arguments is not None:
        out["original_arguments"] = call.original_arguments
    diff = call.metadata.get("diff") if isinstance(call.metadata, dict) else None
    if isinstance(diff, str) and diff:
        out["diff"] = diff
    return {k: v for k, v in out.items() if v is not None}
