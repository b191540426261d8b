"""The session index: one row per thread with what ``cairn sessions`` lists."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_sessions (
    thread_id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    status TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL DEFAULT 'default',
    model TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS cairn_sessions_workspace ON cairn_sessions (workspace, updated_at);
"""

_COLS = "thread_id, workspace, created_at, updated_at, status, title, mode, model"
#: Sub-agent sessions (``<parent>-sub-<call>-<nonce>``) belong to their parent, not to listings.
_TOP_LEVEL = "thread_id NOT LIKE '%-sub-%'"


def list_query(workspace: str | None, limit: int) -> tuple[str, tuple]:
    """The listing query, shared with the stdlib-only reader ``cairn.checkpoints.readonly``."""
    where = _TOP_LEVEL + (" AND workspace = ?" if workspace is not None else "")
    params = (workspace, limit) if workspace is not None else (limit,)
    return f"SELECT {_COLS} FROM cairn_sessions WHERE {where} ORDER BY updated_at DESC LIMIT ?", params


@dataclass(frozen=True)
class SessionRecord:
    session_id: str
    workspace: str
    created_at: float
    updated_at: float
    status: str
    title: str
    mode: str
    model: str

    def to_dict(self) -> dict:
        return asdict(self)


class SessionIndex:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def create(self, thread_id: str, *, workspace: str, mode: str, model: str) -> None:
        now = time.time()
        self.db.write(
            f"INSERT INTO cairn_sessions ({_COLS}) VALUES (?, ?, ?, ?, 'new', '', ?, ?) "
            "ON CONFLICT (thread_id) DO NOTHING",
            (thread_id, workspace, now, now, mode, model),
        )

    def update(
        self, thread_id: str, *, status: str | None = None, title: str | None = None, mode: str | None = None
    ) -> None:
        """Set status/mode; the title is set once (from the first prompt)."""
        self.db.write(
            "UPDATE cairn_sessions SET updated_at = ?, status = COALESCE(?, status), "
            "title = CASE WHEN title = '' AND CAST(? AS TEXT) IS NOT NULL THEN ? ELSE title END, "
            "mode = COALESCE(?, mode) WHERE thread_id = ?",
            (time.time(), status, title, title, mode, thread_id),
        )

    def get(self, thread_id: str) -> SessionRecord | None:
        rows = self.db.query(f"SELECT {_COLS} FROM cairn_sessions WHERE thread_id = ?", (thread_id,))
        return SessionRecord(*rows[0]) if rows else None

    def find(self, prefix: str) -> list[SessionRecord]:
        """Sessions whose id starts with ``prefix`` (people type short ids)."""
        rows = self.db.query(
            f"SELECT {_COLS} FROM cairn_sessions WHERE substr(thread_id, 1, CAST(? AS INTEGER)) = ? "
            f"AND {_TOP_LEVEL} "
            "ORDER BY updated_at DESC",
            (len(prefix), prefix),
        )
        return [SessionRecord(*r) for r in rows]

    def list(self, workspace: str | None = None, *, limit: int = 200) -> list[SessionRecord]:
        """Top-level sessions, newest first (sub-agent sessions are left out)."""
        sql, params = list_query(workspace, limit)
        return [SessionRecord(*r) for r in self.db.query(sql, params)]

    def delete(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_sessions WHERE thread_id = ?", (thread_id,))
