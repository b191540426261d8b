"""Approvals from anywhere: a paused run waits for decisions another process records.

``Session.send(..., wait=True)`` / ``cairn -p ... --wait`` keep the session (its run lock)
while paused on calls awaiting approval, and wait until every one of them has a decision in
the store's ``cairn_decisions`` table — written by ``cairn decide``, by ``cairn resume
--approve ...`` while this run holds the session, or by ``Session.record_decisions`` in a
notebook, on any machine that reaches the same database.  The decisions are then applied
here, as if a person had answered at this process's prompt, and the run continues on the
machine that holds the workspace.  Postgres wakes the waiter with LISTEN/NOTIFY; SQLite is
polled.  ``Session.stop()`` (the CLI's first Ctrl-C) ends the wait and leaves the session
paused and resumable; so does the timeout.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cairn.graph.core import events as ev
from cairn.graph.core.events import EventCallback
from cairn.graph.session.errors import SessionError
from cairn.graph.session.result import RunResult

if TYPE_CHECKING:
    from cairn.graph.session.approvals import Approvals
    from cairn.graph.session.core import SessionCore
    from cairn.graph.session.runner import Runner

#: How often a waiter checks ``Session.stop()`` (the store decides how often it re-reads).
STOP_CHECK_S = 0.25


def asking_ids(result: RunResult) -> list[str]:
    return [c.call_id for c in result.pending if c.status == "awaiting_approval"]


def recorded_for(session: Any, ids: list[str]) -> dict[str, Any] | None:
    """Recorded decisions when every call in ``ids`` has one, else None (``session``: anything
    with ``store`` and ``id``, a Session or its core)."""
    if not ids:
        return None
    got = session.store.decisions.load(session.id, ids)
    return got if all(cid in got for cid in ids) else None


def _await(session: SessionCore, ids: list[str], deadline: float | None) -> dict[str, Any] | None:
    with session.store.listen(session.id) as waiter:
        look = True
        while True:
            if look:
                found = recorded_for(session, ids)
                if found is not None:
                    return found
            if session.cancel_event.is_set():
                return None
            left = STOP_CHECK_S if deadline is None else min(STOP_CHECK_S, deadline - time.monotonic())
            if left <= 0:
                return None
            look = waiter.wait(left)


class Waiting:
    """``session.waiting``: waiting on a pause for decisions recorded elsewhere, then continuing."""

    def __init__(self, core: SessionCore, approvals: Approvals, runs: Runner) -> None:
        self.core = core
        self.approvals = approvals
        self.runs = runs

    def wait(
        self, timeout: float | None = None, *, stream: bool = False, on_event: EventCallback | None = None
    ) -> RunResult:
        """Wait on the current pause for decisions recorded by another process, then continue."""
        with self.core.run_lock.hold():
            return self.until_decided(
                self.runs.status_now(), timeout=timeout, stream=stream, on_event=on_event
            )

    def until_decided(
        self,
        result: RunResult,
        *,
        timeout: float | None,
        stream: bool = False,
        on_event: EventCallback | None = None,
    ) -> RunResult:
        """While ``result`` awaits approval: wait for recorded decisions, apply them, continue.

        Returns the last run's result: done, paused again after ``timeout`` seconds (or after a
        stop), or whatever the continued run ended in.  The caller holds the run lock.
        """
        core = self.core
        deadline = None if timeout is None else time.monotonic() + timeout
        on_event = ev.event_callback(on_event)
        while result.status == "awaiting_approval":
            ids = asking_ids(result)
            # Before saying "waiting": a stop that comes once the person can see it must end the wait.
            core.cancel_event.clear()
            if on_event is not None:
                on_event(ev.Waiting(core.id, ids, timeout))
            decisions = _await(core, ids, deadline)
            if decisions is None:
                return result
            try:
                result = self.approvals.decide(decisions, stream=stream, on_event=on_event)
            except ValueError as exc:  # e.g. edited arguments that no longer validate
                core.store.decisions.clear(core.id, list(decisions))
                if on_event is not None:
                    on_event(ev.DecisionRefused(core.id, str(exc)))
                continue
            core.store.decisions.clear(core.id, list(decisions))
        return result

    def held_elsewhere(self) -> bool:
        """Another process (on any host) is running or waiting on this session right now."""
        try:
            with self.core.run_lock.hold():
                return False
        except SessionError:
            return not self.core.run_lock.held_here

    def answer_recorded(
        self, *, stream: bool, on_event: EventCallback | None, wait: bool, wait_timeout: float | None
    ) -> RunResult:
        """At a pause: apply decisions recorded elsewhere if they answer every call, else report
        (or, with ``wait``, wait for them)."""
        core = self.core
        now = self.runs.status_now()
        recorded = recorded_for(core, asking_ids(now)) if now.status == "awaiting_approval" else None
        if recorded is not None:
            now = self.approvals.decide(recorded, stream=stream, on_event=on_event)
            core.store.decisions.clear(core.id, list(recorded))
        if wait:
            return self.wait(wait_timeout, stream=stream, on_event=on_event)
        return now
