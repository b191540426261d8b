"""A session's history as objects to keep: its checkpoints, a fork from one, an export.

``Session.checkpoints``, ``Session.fork`` and ``Session.export`` are aliases of these
(``cairn.graph.session.alias``); the fork itself is :mod:`cairn.graph.session.fork` (issue 34).
"""

from __future__ import annotations

import copy
from typing import Any

from cairn.graph.session.core import SessionCore


class Archive:
    def __init__(self, core: SessionCore, session_class: type) -> None:
        self.core = core
        #: What a fork is opened as: the session's own class.
        self.session_class = session_class

    def checkpoints(self, limit: int = 50) -> list[dict[str, Any]]:
        """Earlier checkpoints (newest first): id, step, next nodes, message count."""
        core = self.core
        out = []
        for snap in core.graph.get_state_history(core.config(), limit=limit):
            out.append(
                {
                    "checkpoint_id": snap.config["configurable"]["checkpoint_id"],
                    "step": snap.metadata.get("step") if snap.metadata else None,
                    "next": list(snap.next),
                    "messages": len(core.store.transcript.read(core.id, snap.values.get("head"))),
                    "created_at": snap.created_at,
                }
            )
        return out

    def fork(self, at: str | None = None, *, turn: int | None = None, model: Any = None) -> Any:
        """A new session from an earlier checkpoint (``at``: an id from ``checkpoints()``) or from
        just before your ``turn``-th message; this one is left untouched and nothing mutable is
        shared (its own store connection, transcript and state).  The workspace is not rewound
        (``rewind`` does that)."""
        from cairn.graph.session.fork import fork_into, fork_point

        core = self.core
        snap = fork_point(core, at, turn)
        shared = core.store if core.store.location == ":memory:" else None  # one in-memory database
        forked = self.session_class(
            core.workspace.root,
            model=model if model is not None else core.model_option,
            db=None if shared is not None else core.store.location,
            mode=core.mode,
            rules=core.extra_rules,
            tools=core.extra_tools,
            max_steps=core.max_steps,
            max_tokens=core.max_tokens,
            settings=core.settings,
            pricing=copy.deepcopy(core.pricing),
            max_cost=core.max_cost,
            _store=shared,
        )
        try:
            fork_into(core, forked.core, snap)
            if snap is not None:  # the index says where the copy stands, and whose fork it is
                record = core.store.sessions.get(core.id)
                title = f"fork of {record.title}" if record is not None and record.title else None
                forked.store.sessions.update(forked.id, status=forked.runs.status_now().status, title=title)
        except Exception:
            forked.close()
            raise
        return forked

    def export(self, format: str = "md") -> str:
        """The session as a shareable transcript: ``md``, ``json`` or self-contained ``html``,
        secrets the environment filter knows redacted (``cairn.graph.core.export``)."""
        from cairn.graph.core.export import export_session

        return export_session(self.core.store, self.core.id, format, pricing=self.core.pricing)
