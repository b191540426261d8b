"""Reading a session's tool calls back: transcript order + journal status + state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from graph.state import ToolCallInfo, calls

if TYPE_CHECKING:
    from graph.session import Session


def _assemble(session: Session, messages: list[BaseMessage]) -> list[ToolCallInfo]:
    state = session._snapshot().values
    live = {c.call_id: c for c in calls(state.get("pending_tool_calls"))}
    live.update({c.call_id: c for c in calls(state.get("completed_tool_calls"))})
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}
    ordered: list[tuple[str, str, dict]] = []
    for message in messages:
        if isinstance(message, AIMessage):
            ordered.extend((tc["id"], tc["name"], tc.get("args") or {}) for tc in message.tool_calls)
    journal = session.store.journal.get_many(session.id, [cid for cid, _, _ in ordered])
    out: list[ToolCallInfo] = []
    for call_id, name, args in ordered:
        if call_id in live:
            out.append(live[call_id])
            continue
        entry = journal.get(call_id)
        tm = results.get(call_id)
        content = tm.content if tm is not None else None
        text = content if isinstance(content, str) else None
        if entry is not None:
            out.append(
                ToolCallInfo(
                    call_id=call_id,
                    tool_name=entry.tool_name,
                    arguments=entry.arguments,
                    status=entry.status if entry.status in ("success", "error", "cancelled") else "error",
                    result=text if entry.status == "success" else None,
                    error_msg=entry.error_msg or (text if entry.status != "success" else None),
                    risk=entry.risk,
                    reason=entry.reason,
                    display=entry.summary,
                )
            )
        else:
            status = "error" if tm is None or tm.status == "error" else "success"
            out.append(
                ToolCallInfo(
                    call_id=call_id,
                    tool_name=name,
                    arguments=args,
                    status=status,
                    result=text if status == "success" else None,
                    error_msg=text if status == "error" else None,
                )
            )
    return out


def session_tool_calls(session: Session) -> list[ToolCallInfo]:
    return _assemble(session, session.history())


def calls_since_last_human(session: Session, history: list[BaseMessage]) -> list[ToolCallInfo]:
    start = 0
    for index, message in enumerate(history):
        if isinstance(message, HumanMessage) and isinstance(message.content, str):
            start = index
    return _assemble(session, history[start:])
