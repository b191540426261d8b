"""The hook journal: one durable row per hook event of a tool call (issue 32).

A ``PreToolUse`` decision or a ``PostToolUse`` run is written here the moment it is known,
in the same database as the tool journal and the checkpoints.  After a crash the nodes
consult it: a recorded decision is adopted, not asked again; a ``PostToolUse`` that was due
(the tool's result is journaled) but is not recorded ``done`` runs (once).  A row left
``running`` means the process died while the hook ran: it runs again (the documented window).
"""

from __future__ import annotations

import time
from typing import Any

from cairn.checkpoints import fastjson
from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_hook_journal (
    thread_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    event TEXT NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    runs TEXT,
    started_at REAL,
    ended_at REAL,
    PRIMARY KEY (thread_id, call_id, event, attempt)
);
"""


class HookJournal:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def get(
        self, thread_id: str, call_id: str, event: str, attempt: int
    ) -> tuple[str, list[dict[str, Any]]] | None:
        """``(status, runs)`` of a recorded event (status ``running`` or ``done``), or None."""
        rows = self.db.query(
            "SELECT status, runs FROM cairn_hook_journal WHERE thread_id = ? AND call_id = ? "
            "AND event = ? AND attempt = ?",
            (thread_id, call_id, event, attempt),
        )
        if not rows:
            return None
        status, runs = rows[0]
        return status, (fastjson.loads(runs) if runs else [])

    def mark_running(
        self, thread_id: str, call_id: str, event: str, attempt: int, runs: list[dict[str, Any]]
    ) -> None:
        """The event's hooks are running; ``runs``: those that already finished (in order)."""
        self._write(thread_id, call_id, event, attempt, "running", runs)

    def record_done(
        self, thread_id: str, call_id: str, event: str, attempt: int, runs: list[dict[str, Any]]
    ) -> None:
        self._write(thread_id, call_id, event, attempt, "done", runs)

    def entries(self, thread_id: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT call_id, event, attempt, status, runs, started_at, ended_at FROM cairn_hook_journal "
            "WHERE thread_id = ? ORDER BY started_at",
            (thread_id,),
        )
        keys = ("call_id", "event", "attempt", "status", "runs", "started_at", "ended_at")
        out = []
        for row in rows:
            item = dict(zip(keys, row, strict=True))
            item["runs"] = fastjson.loads(item["runs"]) if item["runs"] else []
            out.append(item)
        return out

    def delete_thread(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_hook_journal WHERE thread_id = ?", (thread_id,))

    def _write(self, thread_id: str, call_id: str, event: str, attempt: int, status: str, runs: Any) -> None:
        now = time.time()
        self.db.write(
            "INSERT INTO cairn_hook_journal (thread_id, call_id, event, attempt, status, runs, started_at, "
            "ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id, call_id, event, attempt) "
            "DO UPDATE SET status = excluded.status, runs = excluded.runs, ended_at = excluded.ended_at",
            (
                thread_id,
                call_id,
                event,
                attempt,
                status,
                fastjson.dumps(runs, default=str) if runs is not None else None,
                now,
                now if status == "done" else None,
            ),
        )
