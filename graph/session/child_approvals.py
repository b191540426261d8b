"""Approvals that bubble up: a sub-agent's gated calls shown and decided at its parent.

A child that needs a person pauses (its own checkpoint, index status ``awaiting_approval``).
Its gated calls then appear in the parent's pending list under qualified ids,
``<parent's agent call id>/<child's call id>``, carrying the child's id and description.

- A ``sync`` child suspends the parent's ``agent`` call (``tool_execution`` turns it into
  ``awaiting_approval``, see ``SUSPENDED``), so the parent's run pauses too.  The call is shown
  as its child's calls, never itself.
- A ``background`` child's calls join the parent's pending list at the parent's next pause.

Deciding a qualified id records the decision for the child in the store's decisions table
(``cairn_decisions``, the same one ``cairn decide`` writes), so it survives a crash of either
process.  The child applies recorded decisions when it runs again: a background child's
thread is waiting for them; a sync child's ``agent`` call is approved by the parent once every
one of its child's calls has a decision, and re-attaches to the child when it runs again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cairn.graph.core.agent_reports import agent_info, child_values
from cairn.graph.core.state import ToolCallInfo, calls
from cairn.tools.agent import AWAITING_AGENT

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore

#: Separates the parent's agent call id from the child's call id in a qualified id.
SEP = "/"
#: ``metadata`` key of a parent ``agent`` call suspended until its child's calls are decided.
SUSPENDED = AWAITING_AGENT


def qualify(agent_call_id: str, call_id: str) -> str:
    return f"{agent_call_id}{SEP}{call_id}"


def child_call_id(qualified: str) -> str:
    """The child's own id of a call shown at the parent (``p1/c1`` → ``c1``)."""
    return qualified.split(SEP, 1)[1]


def child_asks(session: SessionCore, record: Any) -> list[ToolCallInfo]:
    """The calls one paused child waits on, as the parent shows them (qualified ids)."""
    if record.status != "awaiting_approval":
        return []
    values = child_values(session.store, record.session_id)
    description = agent_info(record).get("description") or record.title
    out = []
    for call in calls(values.get("pending_tool_calls")):
        if call.status != "awaiting_approval":
            continue
        shown = call.model_copy(
            update={
                "call_id": qualify(record.call_id, call.call_id),
                "agent_id": record.session_id,
                "agent": description,
            }
        )
        out.append(shown)
    return out


def with_child_asks(session: SessionCore, own: list[ToolCallInfo]) -> list[ToolCallInfo]:
    """The parent's gated calls with each suspended ``agent`` call replaced by its child's
    calls, followed by what background children wait on."""
    children = {r.session_id: r for r in session.store.sessions.children(session.id)}
    if not children:
        return own
    out: list[ToolCallInfo] = []
    shown: set[str] = set()
    for call in own:
        child_id = call.metadata.get(SUSPENDED) if call.status == "awaiting_approval" else None
        record = children.get(child_id) if child_id else None
        if record is None:
            out.append(call)
            continue
        asks = child_asks(session, record)
        shown.add(record.session_id)
        out.extend(asks or [call])  # a child that is no longer asking: the call itself (approve re-attaches)
    for child_id, record in children.items():
        if child_id not in shown and agent_info(record).get("kind") == "background":
            out.extend(child_asks(session, record))
    return out


def split(
    decisions: Mapping[str, Any], pending: list[ToolCallInfo]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """``(the parent's own decisions, {child id: {child call id: decision}})``."""
    own: dict[str, Any] = {}
    by_child: dict[str, dict[str, Any]] = {}
    child_calls = {c.call_id: c for c in pending if c.agent_id}
    for call_id, decision in decisions.items():
        shown = child_calls.get(call_id)
        if shown is None:
            own[call_id] = decision
            continue
        inner = child_call_id(call_id)
        by_child.setdefault(shown.agent_id or "", {})[inner] = decision
    return own, by_child


def undecided(session: SessionCore, pending: list[ToolCallInfo]) -> list[str]:
    """Qualified ids of child calls without a recorded decision."""
    left = []
    by_child: dict[str, list[ToolCallInfo]] = {}
    for call in pending:
        if call.agent_id:
            by_child.setdefault(call.agent_id, []).append(call)
    for child_id, asks in by_child.items():
        inner = {child_call_id(c.call_id): c.call_id for c in asks}
        recorded = session.store.decisions.load(child_id, list(inner))
        left += [qualified for cid, qualified in inner.items() if cid not in recorded]
    return left


def resumable_agent_calls(session: SessionCore, own_gated: list[ToolCallInfo]) -> list[str]:
    """The parent's suspended ``agent`` calls whose child has a decision for every call."""
    ready = []
    for call in own_gated:
        child_id = call.metadata.get(SUSPENDED)
        if call.status != "awaiting_approval" or not child_id:
            continue
        record = session.store.sessions.get(child_id)
        asks = child_asks(session, record) if record is not None else []
        inner = [child_call_id(a.call_id) for a in asks]
        if not inner or len(session.store.decisions.load(child_id, inner)) == len(inner):
            ready.append(call.call_id)
    return ready
