"""Gated calls as ``session/request_permission``, and the editor's answer as a cairn decision.

A call awaiting approval offers: allow once, allow always (the exact session rule in the label),
reject (the text the person typed reaches the model), and for shell commands "allow without
sandbox" as a distinct option.  An interrupted call offers retry and cancel.  The answer becomes
one of the decisions ``Session.decide`` takes, so it is journaled like any other.

ACP's answer carries only the option chosen; an editor (or a script) that lets the person say why
they reject puts the text in the response's ``_meta``: ``{"cairn": {"message": "..."}}`` (or
``{"message": "..."}``).  Without it the model is told the person rejected the call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import PermissionOption

APPROVE, ALWAYS, REJECT, NO_SANDBOX = "allow_once", "allow_always", "reject_once", "allow_without_sandbox"
RETRY, CANCEL = "retry", "cancel_call"


def always_rule(call: dict[str, Any], workspace: str | Path) -> str | None:
    """The session rule "allow always" adds for ``call`` (what the CLI's ``a`` shows), or None."""
    from cairn import policy

    try:
        rule = policy.suggest_rule(
            str(call.get("tool_name")), call.get("arguments") or {}, workspace=workspace
        )
        policy.Rules().with_allow(rule)
    except Exception:
        return None
    return rule


def options(call: dict[str, Any], workspace: str | Path) -> list[PermissionOption]:
    """The choices for one gated call."""
    if call.get("status") == "interrupted":
        return [
            PermissionOption(option_id=RETRY, name="Retry (run it again)", kind="allow_once"),
            PermissionOption(
                option_id=CANCEL, name="Cancel (tell the model it did not finish)", kind="reject_once"
            ),
        ]
    offered = [PermissionOption(option_id=APPROVE, name="Allow once", kind="allow_once")]
    rule = always_rule(call, workspace)
    if rule is not None:
        offered.append(
            PermissionOption(
                option_id=ALWAYS,
                name=f"Always allow: {rule}",
                kind="allow_always",
                field_meta={"cairn": {"rule": rule}},
            )
        )
    if call.get("tool_name") == "bash":
        offered.append(
            PermissionOption(option_id=NO_SANDBOX, name="Allow without sandbox", kind="allow_once")
        )
    offered.append(PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"))
    return offered


def decision(response: Any) -> dict[str, Any] | None:
    """The cairn decision for the editor's ``RequestPermissionResponse``; None when cancelled."""
    outcome = response.outcome
    if getattr(outcome, "outcome", None) != "selected":
        return None
    chosen = outcome.option_id
    if chosen == APPROVE:
        return {"action": "approve"}
    if chosen == ALWAYS:
        return {"action": "always"}
    if chosen == NO_SANDBOX:
        return {"action": "approve", "sandbox": "off"}
    if chosen == RETRY:
        return {"action": "retry"}
    if chosen == CANCEL:
        return {"action": "cancel"}
    return {"action": "reject", "message": rejection_text(response, outcome)}


def rejection_text(response: Any, outcome: Any) -> str:
    for meta in (getattr(outcome, "field_meta", None), getattr(response, "field_meta", None)):
        if isinstance(meta, dict):
            inner = meta.get("cairn") if isinstance(meta.get("cairn"), dict) else meta
            text = inner.get("message")
            if isinstance(text, str) and text.strip():
                return text.strip()
    return "The person rejected this call in the editor."
