"""Decisions recorded by one process for a run paused in another ("approvals from anywhere").

``cairn decide ID --approve …`` (or ``cairn resume`` while another process holds the run,
or ``Session.record_decisions`` from a notebook) writes one row per call here and signals
the session; a run waiting on its pause (``cairn -p … --wait``, ``Session.send(…,
wait=True)``) reads them, applies them as if a person had answered at its own prompt, and
deletes them.  Rows for calls that are no longer paused are ignored (call ids are unique
per session), so a crash between applying and deleting is harmless.
"""

from __future__ import annotations

import json
import time
from typing import Any

from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_decisions (
    thread_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    decision TEXT NOT NULL,
    decided_by TEXT NOT NULL DEFAULT '',
    decided_at REAL NOT NULL,
    PRIMARY KEY (thread_id, call_id)
);
"""

#: The Postgres NOTIFY channel; the payload is the session id.
CHANNEL = "cairn_decisions"


class DecisionLog:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def record(self, thread_id: str, decisions: dict[str, Any], *, by: str = "") -> None:
        """Store ``{call_id: decision}`` (``Session.decide``'s format) and wake the waiter."""
        now = time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "INSERT INTO cairn_decisions (thread_id, call_id, decision, decided_by, decided_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id, call_id) DO UPDATE SET "
                "decision = excluded.decision, decided_by = excluded.decided_by, "
                "decided_at = excluded.decided_at",
                (thread_id, call_id, json.dumps(decision), by, now),
            )
            for call_id, decision in decisions.items()
        ]
        if self.db.dialect == "postgres":  # delivered when the transaction commits
            statements.append(("SELECT pg_notify(?, ?)", (CHANNEL, thread_id)))
        self.db.write_many(statements)

    def load(self, thread_id: str, call_ids: list[str]) -> dict[str, Any]:
        if not call_ids:
            return {}
        marks = ",".join("?" for _ in call_ids)
        rows = self.db.query(
            f"SELECT call_id, decision FROM cairn_decisions WHERE thread_id = ? AND call_id IN ({marks})",
            (thread_id, *call_ids),
        )
        return {cid: json.loads(raw) for cid, raw in rows}

    def clear(self, thread_id: str, call_ids: list[str]) -> None:
        if call_ids:
            marks = ",".join("?" for _ in call_ids)
            self.db.write(
                f"DELETE FROM cairn_decisions WHERE thread_id = ? AND call_id IN ({marks})",
                (thread_id, *call_ids),
            )

    def delete_thread(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_decisions WHERE thread_id = ?", (thread_id,))
