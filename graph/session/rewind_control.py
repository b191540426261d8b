"""``session.rewinds``: rewind, redo and per-call undo, each under the session's run lock.

The work is done by ``cairn.graph.session.rewind`` (plan, journal, apply, recover);
``Session.rewind`` and the documented aliases (``Session.redo``, ``undo_call`` ...) call here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.graph.session.core import SessionCore
from cairn.graph.session.errors import SessionError
from cairn.graph.session.rewind_result import RewindResult

if TYPE_CHECKING:
    from cairn.graph.session.rewind_targets import RewindPoint


class Rewinds:
    """Going back in time: files and/or conversation, and undoing that."""

    def __init__(self, core: SessionCore) -> None:
        self.core = core
        #: Rewinds completed after a crash interrupted them (``Session.resume``, later runs).
        self.recovered: list[RewindResult] = []

    def rewind(
        self,
        call_id: str | None = None,
        *,
        turn: int | None = None,
        code: bool = True,
        conversation: bool = True,
        dry_run: bool = False,
        force: bool = False,
    ) -> RewindResult:
        """Return the workspace and/or the conversation to just before ``call_id`` or turn ``turn``.

        Files the person changed since are conflicts, left alone unless ``force``.  The
        transcript keeps the rewound messages; ``redo()`` undoes the rewind.
        """
        from cairn.graph.session import rewind as impl

        return self._locked(
            impl.rewind,
            call_id,
            turn=turn,
            code=code,
            conversation=conversation,
            dry_run=dry_run,
            force=force,
        )

    def redo(self, *, dry_run: bool = False, force: bool = False) -> RewindResult:
        """Undo the last rewind: files and conversation as they were before it."""
        from cairn.graph.session import rewind as impl

        return self._locked(impl.redo, dry_run=dry_run, force=force)

    def undo_call(self, call_id: str, *, dry_run: bool = False, force: bool = False) -> RewindResult:
        """Undo one call's file changes alone, when it is the latest change to those files."""
        from cairn.graph.session import rewind as impl

        return self._locked(impl.undo_call, call_id, dry_run=dry_run, force=force)

    def undo_problem(self, call_id: str) -> str | None:
        """Why ``undo_call(call_id)`` would be refused, or None when it can run."""
        from cairn.graph.session import rewind as impl

        return impl.undo_problem(self.core, call_id)

    def points(self, limit: int = 10) -> list[RewindPoint]:
        """Recent turns and the calls in them that changed files (what ``/rewind`` offers)."""
        from cairn.graph.session.rewind_targets import rewind_points

        core = self.core
        history = core.store.transcript.read(core.id, core.snapshot().values.get("head"))
        return rewind_points(core, history, limit=limit)

    def recover(self) -> list[RewindResult]:
        """Complete rewinds a crash interrupted; returns what was completed."""
        from cairn.graph.session import rewind as impl

        return self._locked(impl.recover, recover=False)

    def _locked(self, fn: Any, *args: Any, recover: bool = True, **kwargs: Any) -> Any:
        from cairn.graph.session import rewind as impl
        from cairn.graph.session.runlock import SessionBusy

        try:
            with self.core.run_lock.hold():
                if recover:
                    self.recovered.extend(impl.recover(self.core))
                return fn(self.core, *args, **kwargs)
        except SessionBusy as exc:
            raise SessionError(str(exc)) from None
