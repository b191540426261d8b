"""A prompt turn: run the Session, ask the editor about every gated call, answer a stop reason.

The graph pauses at approvals (its ``human_approval`` interrupt is checkpointed), so asking the
editor happens between Session runs: a crash while the editor decides loses nothing, the call
is asked again after ``session/load``.  Calls left interrupted (a cancel mid-tool, a crash) are
asked about (retry/cancel) before the next message is sent.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import RequestError
from acp.schema import ToolCallUpdate

from cairn.graph.apps.acp import permissions
from cairn.graph.apps.acp.bridge import SessionBridge
from cairn.graph.apps.acp.updates import call_update, stop_reason

GATED = ("awaiting_approval", "interrupted")


class Cancelled(Exception):
    """The editor cancelled the turn while a permission request was open."""


async def prompt_turn(bridge: SessionBridge, text: str) -> str:
    """Send ``text`` (after settling calls still waiting) and return the ACP stop reason."""
    bridge.start_turn()
    session = bridge.session
    try:
        waiting = await bridge.call(session.pending)
        if waiting:
            result = await settle(bridge, waiting)
            if bridge.cancelled.is_set() or (result.status in GATED and result.pending):
                return "cancelled"
        result = await bridge.run(lambda: session.send(text, stream=True, on_event=bridge.on_event))
        result = await until_settled(bridge, result)
    except Cancelled:
        await bridge.flush()
        return "cancelled"
    await bridge.flush()
    if result.status == "error" and not bridge.cancelled.is_set():
        raise RequestError.internal_error(
            {"message": result.error or "the run failed", "session_id": session.id}
        )
    return stop_reason(result.status, cancelled=bridge.cancelled.is_set())


async def settle_after_load(bridge: SessionBridge) -> None:
    """After ``session/load``: ask about calls a crash or a closed editor left waiting."""
    async with bridge.turn:
        bridge.start_turn()
        waiting = await bridge.call(bridge.session.pending)
        if not waiting:
            return
        try:
            await settle(bridge, waiting)
        except Cancelled:
            pass
        await bridge.flush()


async def until_settled(bridge: SessionBridge, result: Any) -> Any:
    while result.status in GATED and result.pending and not bridge.cancelled.is_set():
        result = await settle(bridge, result.pending)
    return result


async def settle(bridge: SessionBridge, waiting: list[Any]) -> Any:
    """Ask about ``waiting`` calls, apply the answers, and go on until nothing waits."""
    decisions: dict[str, Any] = {}
    for call in waiting:
        decision = await ask(bridge, call.to_state())
        if decision is None:
            raise Cancelled
        decisions[call.call_id] = decision
    session = bridge.session
    result = await bridge.run(lambda: session.decide(decisions, stream=True, on_event=bridge.on_event))
    return await until_settled(bridge, result)


async def ask(bridge: SessionBridge, call: dict[str, Any]) -> dict[str, Any] | None:
    """One ``session/request_permission``; None when the editor cancelled."""
    shown = call_update(call, bridge.view, during_approval=True)
    bridge.post(shown)
    await bridge.flush()
    tool_call = ToolCallUpdate(
        tool_call_id=shown.tool_call_id,
        title=shown.title,
        kind=shown.kind,
        status=shown.status,
        content=shown.content,
        locations=shown.locations,
        raw_input=shown.raw_input,
        field_meta=shown.field_meta,
    )
    request = asyncio.ensure_future(
        bridge.conn.request_permission(
            session_id=bridge.id,
            tool_call=tool_call,
            options=permissions.options(call, bridge.view.workspace),
        )
    )
    stopped = asyncio.ensure_future(bridge.cancelled.wait())
    done, _ = await asyncio.wait({request, stopped}, return_when=asyncio.FIRST_COMPLETED)
    if request not in done:
        request.cancel()
        return None
    stopped.cancel()
    return permissions.decision(request.result())
