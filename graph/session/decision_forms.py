"""Turning what a person says about gated calls into validated decisions (``DecisionError``
when one cannot be applied)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.graph.core.state import ToolCallInfo
from cairn.graph.nodes.human_approval import CallDecision
from cairn.tools import ToolRegistry, ToolResult


class DecisionError(ValueError):
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
