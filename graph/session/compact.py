"""``Session.compact(focus)`` / ``/compact [focus]``: a compaction a person asked for.

It runs through the graph like any step (the ``compaction`` node, journaled, checkpointed).
An idle session starts a run that goes START → compaction → END.  A session paused on calls
waiting for a person is moved to the compaction node (as if ``reasoning`` had asked for it),
which then hands back to ``human_approval``: the same calls, with the same previews, are asked
again.
"""

from __future__ import annotations

from typing import Any

from cairn.graph.build import update_state_as
from cairn.graph.core.compaction.prepare import request
from cairn.graph.core.compaction.view import marker_info
from cairn.graph.session.core import SessionCore


def run_manual_compaction(session: SessionCore, focus: str | None, on_event: Any = None) -> dict[str, Any]:
    from cairn.graph.session.errors import SessionError
    from cairn.graph.session.runlock import SessionBusy

    req = request("manual", (focus or "").strip() or None)
    snap = session.snapshot()
    before = (snap.values.get("context") or {}).get("marker")
    try:
        with session.run_lock.hold():
            from cairn.graph.session.runs import run_graph

            if snap.interrupts:
                update_state_as(session.graph, session.config(), {"compact_request": req}, "reasoning")
                result = run_graph(session, None, stream=False, on_event=on_event)
            else:
                result = run_graph(session, {"compact_request": req}, stream=False, on_event=on_event)
    except SessionBusy as exc:
        raise SessionError(str(exc)) from None
    if result.status == "error":
        raise SessionError(f"compaction failed: {result.error}")
    values = session.snapshot().values
    marker = (values.get("context") or {}).get("marker")
    if not marker or marker == before:
        return {"skipped": True, "reason": "nothing old enough to summarize"}
    [message] = session.store.transcript.tail(session.id, values.get("head"), stop=lambda m: m.id == marker)[
        :1
    ]
    return {"marker": marker, **marker_info(message), "summary": message.text}
