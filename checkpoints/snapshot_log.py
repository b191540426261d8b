"""Where snapshots and rewinds are recorded: two tables beside the tool-call journal.

``cairn_snapshots`` keys a workspace snapshot (a tree id in the shadow repository) to a
session and a call: ``before`` is written before the call's ``executing`` record (the first
attempt's is kept: a retry of an interrupted call still rewinds to before its first run),
``after`` the moment the tool returns.  ``cairn_rewinds`` journals each rewind, redo and
undo: its plan is stored (``started``) before any file is touched, so a rewind killed
mid-way is completed from the plan on the next open (``done``).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from cairn.checkpoints.db import Database
from cairn.checkpoints.text_escape import escape_optional

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_snapshots (
    thread_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tree TEXT,
    skipped TEXT,
    error TEXT,
    created_at REAL NOT NULL,
    PRIMARY KEY (thread_id, call_id, phase)
);
CREATE TABLE IF NOT EXISTS cairn_rewinds (
    thread_id TEXT NOT NULL,
    rewind_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    plan TEXT NOT NULL,
    created_at REAL NOT NULL,
    ended_at REAL,
    PRIMARY KEY (thread_id, rewind_id)
);
"""


@dataclass(frozen=True)
class SnapshotRecord:
    call_id: str
    phase: str  # "before" | "after"
    seq: int
    tree: str | None  # None when the snapshot failed (``error`` says why)
    skipped: dict[str, str]
    error: str | None
    created_at: float


@dataclass(frozen=True)
class RewindRecord:
    rewind_id: str
    seq: int
    kind: str  # "rewind" | "redo" | "undo"
    status: str  # "started" | "done"
    plan: dict[str, Any]
    created_at: float
    ended_at: float | None


class SnapshotLog:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    # -- snapshots ------------------------------------------------------------------------
    def record(
        self,
        thread_id: str,
        call_id: str,
        phase: str,
        *,
        tree: str | None,
        skipped: dict[str, str] | None = None,
        error: str | None = None,
    ) -> None:
        # The first "before" snapshot of a call wins (a crash retried the call); "after" is the latest.
        on_conflict = (
            "DO NOTHING"
            if phase == "before"
            else "DO UPDATE SET seq = excluded.seq, tree = excluded.tree, skipped = excluded.skipped, "
            "error = excluded.error, created_at = excluded.created_at"
        )
        with self.db.transaction() as conn:
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM cairn_snapshots WHERE thread_id = ?", (thread_id,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO cairn_snapshots (thread_id, call_id, phase, seq, tree, skipped, error, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                f"ON CONFLICT (thread_id, call_id, phase) {on_conflict}",
                (
                    thread_id,
                    call_id,
                    phase,
                    seq,
                    tree,
                    json.dumps(skipped or {}),
                    escape_optional(error),
                    time.time(),
                ),
            )

    def snapshots(self, thread_id: str) -> list[SnapshotRecord]:
        rows = self.db.query(
            "SELECT call_id, phase, seq, tree, skipped, error, created_at FROM cairn_snapshots "
            "WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
        )
        return [SnapshotRecord(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"), r[5], r[6]) for r in rows]

    # -- rewinds --------------------------------------------------------------------------
    def start_rewind(self, thread_id: str, kind: str, plan: dict[str, Any]) -> str:
        rewind_id = uuid.uuid4().hex[:12]
        with self.db.transaction() as conn:
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM cairn_rewinds WHERE thread_id = ?", (thread_id,)
            ).fetchone()[0]
            conn.execute(
                "INSERT INTO cairn_rewinds (thread_id, rewind_id, seq, kind, status, plan, created_at) "
                "VALUES (?, ?, ?, ?, 'started', ?, ?)",
                (thread_id, rewind_id, seq, kind, json.dumps(plan), time.time()),
            )
        return rewind_id

    def finish_rewind(self, thread_id: str, rewind_id: str, plan: dict[str, Any]) -> None:
        self.db.write(
            "UPDATE cairn_rewinds SET status = 'done', plan = ?, ended_at = ? WHERE thread_id = ? AND rewind_id = ?",
            (json.dumps(plan), time.time(), thread_id, rewind_id),
        )

    def rewinds(self, thread_id: str) -> list[RewindRecord]:
        rows = self.db.query(
            "SELECT rewind_id, seq, kind, status, plan, created_at, ended_at FROM cairn_rewinds "
            "WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
        )
        return [RewindRecord(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6]) for r in rows]

    def delete_thread(self, thread_id: str) -> None:
        self.db.write_many(
            [
                ("DELETE FROM cairn_snapshots WHERE thread_id = ?", (thread_id,)),
                ("DELETE FROM cairn_rewinds WHERE thread_id = ?", (thread_id,)),
            ]
        )
