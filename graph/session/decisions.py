"""Turning what a person says about gated calls into validated decisions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.errors import CairnError
from cairn.graph.core.state import ToolCallInfo
from cairn.graph.nodes.human_approval import CallDecision
from cairn.tools import ToolRegistry, ToolResult


class DecisionError(CairnError, ValueError):
    """A decision that cannot be applied (unknown call id, invalid edit...)."""


def normalize_decisions(
    decisions: Mapping[str, Any], gated: Mapping[str, ToolCallInfo], registry: ToolRegistry
) -> dict[str, dict[str, Any]]:
    """Validate ``{call_id: decision}`` against the gated calls; returns CallDecision dicts.

    Accepted forms: ``"approve"``, ``"always"``, ``"reject"``, ``"retry"``, ``"cancel"``,
    ``{"reject": "message"}``, ``{"edit": {...args}}``, or a CallDecision-shaped dict such as
    ``{"action": "approve", "sandbox": "off"}`` (run a shell call without the OS sandbox).
    """
    out: dict[str, dict[str, Any]] = {}
    for call_id, raw in decisions.items():
        call = gated.get(call_id)
        if call is None:
            valid = ", ".join(gated) or "(none)"
            raise DecisionError(f"no gated call {call_id!r}; calls waiting for a decision: {valid}")
        decision = _parse(raw)
        allowed = (
            ("retry", "cancel") if call.status == "interrupted" else ("approve", "always", "reject", "edit")
        )
        if decision.action not in allowed:
            raise DecisionError(
                f"{call_id} ({call.tool_name}) is {call.status}: choose one of {', '.join(allowed)}"
            )
        if decision.sandbox is not None and decision.action not in ("approve", "always", "edit"):
            raise DecisionError(f'{call_id}: sandbox="off" goes with approve, always or edit')
        if decision.network is not None:
            if decision.action not in ("approve", "always") or decision.sandbox is not None:
                raise DecisionError(f"{call_id}: network goes with approve or always, in the sandbox")
            if call.tool_name != "bash" or call.sandbox in (None, "off"):
                raise DecisionError(f"{call_id}: network is granted to sandboxed shell commands only")
        if decision.action == "edit":
            checked = registry.validate(call.tool_name, decision.args or {})
            if isinstance(checked, ToolResult):
                raise DecisionError(checked.error or "invalid arguments")
            decision = decision.model_copy(update={"args": checked[1]})
        out[call_id] = decision.model_dump(exclude_none=True)
    return out


def _parse(raw: Any) -> CallDecision:
    if isinstance(raw, CallDecision):
        return raw
    if isinstance(raw, str):
        action = raw.strip().lower()
        action = {"yes": "approve", "y": "approve", "no": "reject", "n": "reject"}.get(action, action)
        if action not in ("approve", "always", "reject", "retry", "cancel"):
            raise DecisionError(f"unknown decision {raw!r}")
        return CallDecision(action=action)  # type: ignore[arg-type]
    if isinstance(raw, Mapping):
        if "action" in raw:
            try:
                return CallDecision.model_validate(dict(raw))
            except ValueError as exc:
                raise DecisionError(f"invalid decision {dict(raw)!r}: {exc}") from None
        if len(raw) == 1:
            ((key, value),) = raw.items()
            if key == "reject":
                return CallDecision(action="reject", message=str(value or ""))
            if key == "edit":
                if not isinstance(value, Mapping):
                    raise DecisionError("an edit decision needs the new arguments as an object")
                return CallDecision(action="edit", args=dict(value))
    raise DecisionError(f"unknown decision {raw!r}")


def killed_in_flight(session: Any) -> list[ToolCallInfo]:
    """Calls a killed process left ``executing``, shown as the ``interrupted`` calls they are.

    After a SIGKILL mid-call the stored run still says the call is pending; the graph marks
    it interrupted only when the run is continued.  ``Session.pending()`` adds these views at
    once, so a person sees retry/cancel before anything runs; deciding on one recovers the run
    first (``decide``), then applies the decision.  A session another process is running has
    no killed calls: its ``executing`` calls are running.
    """
    from cairn.graph.core.state import calls, unfinished_steps
    from cairn.graph.nodes.tool_execution import INTERRUPTED_BY_CRASH
    from cairn.graph.session.runlock import SessionBusy

    snap = session._snapshot()
    if snap.interrupts or "tool_execution" not in unfinished_steps(snap):
        return []
    waiting = [c for c in calls(snap.values.get("pending_tool_calls")) if c.status == "pending"]
    if not waiting:
        return []
    entries = session.store.journal.get_many(session.id, [c.call_id for c in waiting])
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
        with session._run_lock.hold():  # free: no process is running them
            pass
    except SessionBusy:
        return []
    return killed
