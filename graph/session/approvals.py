"""``session.approvals``: approve / reject / edit / retry / cancel / decide on gated tool calls.

Each continues the run once nothing is left undecided and returns a ``RunResult``; ``Session``
offers the same methods (``s.approve()`` is ``s.approvals.approve()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langgraph.types import Command

from cairn.graph.core.state import FRESH_RUN, GATED_STATUSES, calls, unfinished_steps
from cairn.graph.session.child_approvals import resumable_agent_calls, split, undecided
from cairn.graph.session.core import SessionCore
from cairn.graph.session.decision_forms import normalize_decisions
from cairn.graph.session.errors import SessionError

if TYPE_CHECKING:
    from cairn.graph.core.context import EventCallback
    from cairn.graph.session.result import RunResult
    from cairn.graph.session.runner import Runner


class Approvals:
    """Decisions a person gives in this process; decisions for a sub-agent's calls are recorded
    for the child, the session's own are staged until every gated call has one."""

    def __init__(self, core: SessionCore, runs: Runner) -> None:
        self.core = core
        self.runs = runs
        #: Decisions given for some of the gated calls, applied once all have one.
        self.staged: dict[str, dict[str, Any]] = {}

    def approve(
        self,
        call_id: str = "all",
        *,
        always: bool = False,
        sandbox: str | None = None,
        network: list[str] | None = None,
        **kw: Any,
    ) -> RunResult:
        """Approve (``always``: and allow calls like it for the session).  ``sandbox="off"`` runs
        an approved shell command without the OS sandbox (otherwise: workspace-write);
        ``network=["pypi.org", ...]`` lets it reach those domains through cairn's egress proxy."""
        if sandbox not in (None, "off"):
            raise ValueError(f'sandbox must be None or "off", not {sandbox!r}')
        if sandbox is not None and network:
            raise ValueError('network applies to sandboxed commands; sandbox="off" has the full network')
        decision: dict[str, Any] = {"action": "always" if always else "approve"}
        if sandbox is not None:
            decision["sandbox"] = sandbox
        if network:
            if isinstance(network, str):
                raise ValueError("network must be a list of domain names")
            decision["network"] = list(network)
        return self._decide_each(call_id, decision, **kw)

    def reject(self, call_id: str = "all", message: str = "", **kw: Any) -> RunResult:
        return self._decide_each(call_id, {"action": "reject", "message": message}, **kw)

    def edit(self, call_id: str, args: Mapping[str, Any], **kw: Any) -> RunResult:
        return self.decide({call_id: {"edit": dict(args)}}, **kw)

    def retry(self, call_id: str = "all", **kw: Any) -> RunResult:
        return self._decide_each(call_id, {"action": "retry"}, **kw)

    def cancel(self, call_id: str = "all", **kw: Any) -> RunResult:
        return self._decide_each(call_id, {"action": "cancel"}, **kw)

    def decide(
        self, decisions: Mapping[str, Any], *, stream: bool = False, on_event: EventCallback | None = None
    ) -> RunResult:
        """Several decisions at once: ``{call_id: "approve" | "always" | "reject" | {"reject": msg} |
        {"edit": args} | "retry" | "cancel" | {"action": "approve", "sandbox": "off"}}``. The run
        continues once every gated call is decided."""
        core = self.core
        snap = core.snapshot()
        if not snap.interrupts and unfinished_steps(snap):
            # Cut off before it reached the approval prompt (killed mid-turn): recover first,
            # so the decisions answer a real prompt instead of being dropped.
            recovered = self.runs.run(None, stream, on_event)
            if recovered.status not in GATED_STATUSES:
                return recovered
            still = {c.call_id for c in recovered.pending}
            decisions = {cid: d for cid, d in decisions.items() if cid in still}
            if not decisions:
                return recovered
        shown = self.runs.pending()
        gated = {c.call_id: c for c in shown}
        if not gated:
            raise SessionError("no tool calls are waiting for a decision")
        own, by_child = split(normalize_decisions(decisions, gated, core.registry), shown)
        for child_id, child_decisions in by_child.items():  # the child applies them when it runs
            core.store.decisions.record(child_id, child_decisions, by="parent")
        self.staged.update(own)
        own_gated = [
            c for c in calls(core.snapshot().values.get("pending_tool_calls")) if c.status in GATED_STATUSES
        ]
        for call_id in resumable_agent_calls(core, own_gated):
            self.staged.setdefault(call_id, {"action": "approve"})  # re-attaches to its child
        own_ids = [c.call_id for c in own_gated]
        if undecided(core, shown) or set(own_ids) - set(self.staged):
            return self.runs.status_now()
        if not own_ids:  # only background sub-agents were waiting: their threads go on
            return self.runs.run(dict(FRESH_RUN), stream, on_event, wait_first=True)
        answer = {"decisions": {cid: self.staged[cid] for cid in own_ids}}
        self.staged.clear()
        return self.runs.run(Command(resume=answer), stream, on_event)

    def record(self, decisions: dict[str, Any], *, by: str = "") -> None:
        """Record decisions for a run paused in another process (it applies them and continues).

        Same format as ``decide``; checked against the calls awaiting approval now.
        """
        gated = {c.call_id: c for c in self.runs.pending()}
        if not gated:
            raise SessionError("no tool calls are waiting for a decision")
        normalize_decisions(decisions, gated, self.core.registry)  # raises DecisionError (ValueError)
        self.core.store.decisions.record(self.core.id, dict(decisions), by=by)

    def _decide_each(self, call_id: str, decision: dict[str, Any], **kw: Any) -> RunResult:
        if call_id == "all":
            snap = self.core.snapshot()
            if not snap.interrupts and unfinished_steps(snap):  # cut off before its prompt: recover first
                recovered = self.runs.run(None, kw.get("stream", False), kw.get("on_event"))
                if recovered.status not in GATED_STATUSES:
                    return recovered
        ids = [c.call_id for c in self.runs.pending()] if call_id == "all" else [call_id]
        if not ids:
            raise SessionError("no tool calls are waiting for a decision")
        return self.decide({cid: decision for cid in ids}, **kw)
