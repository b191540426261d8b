"""Calls a killed process left ``executing``, shown as the ``interrupted`` calls they are."""

from __future__ import annotations

from cairn.graph.core.state import ToolCallInfo
from cairn.graph.session.core import SessionCore


def killed_in_flight(core: SessionCore) -> list[ToolCallInfo]:
    """The killed calls, as interrupted ones.

    After a SIGKILL mid-call the stored run still says the call is pending; the graph marks
    it interrupted only when the run is continued.  ``Session.pending()`` adds these views at
    once, so a person sees retry/cancel before anything runs; deciding on one recovers the run
    first (``decide``), then applies the decision.  A session another process is running has
    no killed calls: its ``executing`` calls are running.
    """
    from cairn.graph.core.state import calls, unfinished_steps
    from cairn.graph.nodes.tool_execution import INTERRUPTED_BY_CRASH
    from cairn.graph.session.runlock import SessionBusy

    snap = core.snapshot()
    if snap.interrupts or "tool_execution" not in unfinished_steps(snap):
        return []
    waiting = [c for c in calls(snap.values.get("pending_tool_calls")) if c.status == "pending"]
    if not waiting:
        return []
    entries = core.store.journal.get_many(core.id, [c.call_id for c in waiting])
    killed = []
    for call in waiting:
        entry = entries.get(call.call_id)
        if (
            entry is None
            or entry.terminal
            or entry.tool_name != call.tool_name
            or entry.attempt < call.attempt
        ):
            continue
        killed.append(call.model_copy(update={"status": "interrupted", "error_msg": INTERRUPTED_BY_CRASH}))
    if not killed:
        return []
    try:
        with core.run_lock.hold():  # free: no process is running them
            pass
    except SessionBusy:
        return []
    return killed
