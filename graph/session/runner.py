"""Starting and continuing runs for a Session: the run lock, recovery, the stop flag, background
sub-agents' reports, and where the session stands when nothing runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import HumanMessage

from cairn.graph.core.events import EventCallback, event_callback
from cairn.graph.core.state import FRESH_RUN, GATED_STATUSES, ToolCallInfo, calls, unfinished_steps
from cairn.graph.session.core import SessionCore, model_label
from cairn.graph.session.errors import SessionError
from cairn.graph.session.result import RunResult
from cairn.graph.session.rewind_control import Rewinds

#: Unfinished steps a new message may simply follow (see ``Runner.send``).
SUPERSEDABLE_STEPS = frozenset({"reasoning", "__start__"})
#: A run that ends while background sub-agents work waits and reports at most this many times.
MAX_REPORT_ROUNDS = 50

#: Applied to a run's result while the run lock is still held (``Session.send(wait=True)``).
Then = Callable[[RunResult], RunResult]


class Runner:
    """``session.runs``: every run of a session goes through ``run``."""

    def __init__(
        self, core: SessionCore, rewinds: Rewinds, default_sink: Callable[[], Any] = lambda: None
    ) -> None:
        self.core = core
        self.rewinds = rewinds
        #: Gives ``Session.default_event_sink`` (where ``stream=True`` without ``on_event`` goes).
        self.default_sink = default_sink
        self._depth = 0  # nested runs (a decision applied while waiting): the flag clears at 0

    def stop(self) -> None:
        """Stop the running call (see ``Session.stop``)."""
        self.core.cancel_event.set()

    # -- starting -------------------------------------------------------------------------
    def send(self, text: str, stream: bool, on_event: EventCallback | None, then: Then | None) -> RunResult:
        """Store ``text`` after the run's head and run (see ``Session.send``)."""
        core = self.core
        if not text.strip():
            self.forget_if_empty()
            raise ValueError("message is empty")
        if any(r.status == "started" for r in core.store.snapshots.rewinds(core.id)):
            self.rewinds.recovered.extend(self.rewinds.recover())  # before the message joins the branch
        state = core.snapshot()
        self._refuse_unfinished(state)
        try:
            core.model  # noqa: B018  (a model that cannot be built fails here, before the session is "running")
        except Exception:
            self.forget_if_empty()  # a failed start leaves no empty session behind
            raise
        if core.hooks_engine is not None:  # hooks (issue 32): SessionStart, UserPromptSubmit
            from cairn.graph.session.hooks_run import before_prompt

            text, blocked = before_prompt(core, text, event_callback(on_event))
            if blocked is not None:
                self.forget_if_empty()
                return blocked
        from cairn.graph.session.runs import run_head

        self.ensure_indexed()
        # A prompt a kill left staged (see ``cairn.checkpoints.inbox``) was sent: this one follows it.
        parent = self.staged_prompt(state) or run_head(core, state)
        store = core.store

        def staged(head: str | None) -> list[tuple[str, tuple[Any, ...]]]:
            # One transaction: the message, its staging and "running" (the first-write window).
            return [
                store.inbox.stage_statement(core.id, head or ""),
                store.sessions.update_statement(core.id, title=_title(text), status="running"),
            ]

        try:
            head = store.transcript.append(core.id, parent, [HumanMessage(text)], also=staged)
        except Exception:
            self.forget_if_empty()
            raise
        return self.run({"head": head, **FRESH_RUN}, stream, on_event, then=then)

    def _refuse_unfinished(self, state: Any) -> None:
        """A new message cannot follow calls still to decide or steps still to run.

        A run cut off before the model answered (model error, Ctrl-C) has nothing pending
        but its model call, and one killed before its first step has only LangGraph's input
        step (``__start__``) left: the new message goes after the one the model never saw."""
        gated = [c for c in calls(state.values.get("pending_tool_calls")) if c.status in GATED_STATUSES]
        steps = unfinished_steps(state)
        if gated or (steps and not set(steps) <= SUPERSEDABLE_STEPS):
            raise SessionError(
                "the session is paused with unfinished tool calls "
                f"({', '.join(c.call_id for c in self.pending()) or ', '.join(steps)}); "
                "decide them (approve/reject/retry/cancel) or continue_() first"
            )

    def resume_run(self, stream: bool, on_event: EventCallback | None, then: Then | None) -> RunResult:
        """Continue a run not paused at a prompt: crashed mid-step, killed after storing its
        prompt, paused by a limit, or left with background sub-agents at work."""
        state = self.core.snapshot()
        if unfinished_steps(state):
            return self.run(None, stream, on_event, then=then)
        staged = self.staged_prompt(state)
        if staged is not None:  # killed after storing the prompt, before any checkpoint held it
            return self.run({"head": staged, **FRESH_RUN}, stream, on_event, then=then)
        if state.values.get("paused"):
            return self.run(dict(FRESH_RUN), stream, on_event, then=then)
        if self.core.subagents.active() or self.awaiting_children():
            # Background sub-agents of a run a crash cut short: re-attach, wait, take their reports.
            return self.run(dict(FRESH_RUN), stream, on_event, then=then, wait_first=True)
        return self.status_now()

    # -- running --------------------------------------------------------------------------
    def run(
        self,
        payload: Any,
        stream: bool,
        on_event: EventCallback | None,
        *,
        then: Then | None = None,
        wait_first: bool = False,
    ) -> RunResult:
        """Run the graph from ``payload`` (None: continue) under the run lock."""
        sink = self.default_sink()
        if stream and on_event is None and sink is not None:
            on_event = sink()
        on_event = event_callback(on_event)  # (events) an old ``(kind, payload)`` callback, adapted
        self.core.load_extension_tools()
        self._depth += 1
        try:
            return self._run_held(payload, stream, on_event, then=then, wait_first=wait_first)
        finally:
            self._depth -= 1
            if self._depth == 0:
                # A stop applies to the run it was asked during (or the one about to start):
                # cleared only once that run is over, never at its start (see ``Session.stop``).
                self.core.cancel_event.clear()

    def _run_held(
        self,
        payload: Any,
        stream: bool,
        on_event: EventCallback | None,
        *,
        then: Then | None,
        wait_first: bool,
    ) -> RunResult:
        from cairn.graph.session.rewind import recover
        from cairn.graph.session.runs import run_graph

        core = self.core
        with core.run_lock.hold():
            self.rewinds.recovered.extend(recover(core))
            core.event_sink = on_event
            core.subagents.reattach()
            if wait_first:
                core.subagents.wait(core.cancel_event)
                if core.subagents.asking():  # a background sub-agent needs a person first
                    return self.status_now()
            result = run_graph(core, payload, stream=stream, on_event=on_event)
            result = self._take_reports(result, stream, on_event)
            if core.hooks_engine is not None:  # hooks (issue 32): Stop may send the model back to work
                from cairn.graph.session.hooks_run import after_run

                rerun = lambda p: run_graph(core, p, stream=stream, on_event=on_event)  # noqa: E731
                result = after_run(core, result, rerun, on_event)
            result = then(result) if then is not None else result
            if self._depth == 1:  # hooks (issue 32): notify when it waits, failed or took long
                from cairn.graph.session.hooks_run import notify_after_run

                notify_after_run(core, result, on_event)
            return result

    def _take_reports(self, result: RunResult, stream: bool, on_event: EventCallback | None) -> RunResult:
        """Background sub-agents still at work: the turn ends when their reports are in."""
        from cairn.graph.session.runs import run_graph

        core = self.core
        for _ in range(MAX_REPORT_ROUNDS):
            if result.status != "done" or not self.awaiting_children():
                break
            core.subagents.wait(core.cancel_event)
            if core.cancel_event.is_set():
                break
            if core.subagents.asking():  # the turn pauses: a background sub-agent needs a person
                result = result.model_copy(update={"status": "awaiting_approval", "pending": self.pending()})
                core.store.sessions.update(core.id, status="awaiting_approval")
                break
            result = run_graph(core, dict(FRESH_RUN), stream=stream, on_event=on_event)
        return result

    # -- where the session stands ---------------------------------------------------------
    def pending(self) -> list[ToolCallInfo]:
        """Calls waiting for a person, sub-agents' included (see ``Session.pending``)."""
        from cairn.graph.session.child_approvals import with_child_asks
        from cairn.graph.session.killed_calls import killed_in_flight

        own = [
            c
            for c in calls(self.core.snapshot().values.get("pending_tool_calls"))
            if c.status in GATED_STATUSES
        ]
        # -- (R2, issue 28) calls a SIGKILL cut off show as interrupted at once, not after continue_()
        own += killed_in_flight(self.core)
        return with_child_asks(self.core, own)

    def status_now(self) -> RunResult:
        """Where the session stands, without running anything.

        The index is corrected when it says otherwise: a run killed after its last checkpoint
        but before it recorded its status is still listed as ``running``.
        """
        from cairn.graph.session.runs import build_result

        core = self.core
        result = build_result(core, None, None, since_head=None)
        record = core.store.sessions.get(core.id)
        status = record.status if record else "new"
        if result.status != "error" and status not in (result.status, "new"):
            core.store.sessions.update(core.id, status=result.status)
        return result

    def awaiting_children(self) -> bool:
        core = self.core
        if core.subagents.running():
            return True
        if not core.store.sessions.children(core.id):  # no sub-agent ever: no state to read
            return False
        delivered = list(core.snapshot().values.get("delivered_agents") or [])
        return core.subagents.undelivered(delivered)

    def staged_prompt(self, state: Any) -> str | None:
        """The head of a prompt stored but never taken by a run (a kill in the first-write
        window), or None.  A staging that a checkpoint already holds is cleared here."""
        core = self.core
        staged = core.store.inbox.get(core.id)
        if staged is None:
            return None
        from cairn.graph.session.runs import run_head

        current = run_head(core, state)
        if current is not None:
            chain = core.store.transcript.tail(core.id, current, stop=lambda m: m.id == staged)
            if chain and chain[0].id == staged:
                core.store.inbox.clear(core.id, staged)
                return None
        return staged

    # -- the session's index row ----------------------------------------------------------
    def ensure_indexed(self) -> None:
        """The session's index row (a failed start may have removed it)."""
        core = self.core
        core.store.sessions.create(
            core.id, workspace=str(core.workspace.root), mode=core.mode, model=model_label(core.model_option)
        )

    def forget_if_empty(self) -> None:
        """Drop the index row of a session that never stored anything (a failed first start)."""
        core = self.core
        record = core.store.sessions.get(core.id)
        if record is None or record.status != "new" or record.parent_id:
            return
        if core.graph.checkpointer.get_tuple(core.config()) is None and core.store.inbox.get(core.id) is None:
            core.store.sessions.delete(core.id)


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line[:80] + ("…" if len(line) > 80 else "")
