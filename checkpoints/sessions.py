"""The session index: one row per thread with what ``cairn sessions`` lists."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

from cairn.checkpoints.db import Database
from cairn.checkpoints.text_escape import escape_optional, escape_text

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_sessions (
    thread_id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    status TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    mode TEXT NOT NULL DEFAULT 'default',
    model TEXT NOT NULL DEFAULT '',
    parent_id TEXT NOT NULL DEFAULT '',
    call_id TEXT NOT NULL DEFAULT '',
    agent TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS cairn_sessions_workspace ON cairn_sessions (workspace, updated_at);
"""

_COLS = "thread_id, workspace, created_at, updated_at, status, title, mode, model"
#: Sub-agent links, added after the first release: databases made before get them by ALTER TABLE.
#: ``agent`` is the sub-agent's request as JSON (kind, description, prompt, branch, worktree, budgets).
LINK_COLUMNS = ("parent_id", "call_id", "agent")
_LINKS = ", ".join(LINK_COLUMNS)
#: Sub-agent sessions (``<parent>-sub-<call>-<nonce>``) belong to their parent, not to listings.
_TOP_LEVEL = "thread_id NOT LIKE '%-sub-%'"


def list_query(workspace: str | None, limit: int) -> tuple[str, tuple]:
    """The listing query, shared with the stdlib-only reader ``cairn.checkpoints.readonly``."""
    where = _TOP_LEVEL + (" AND workspace = ?" if workspace is not None else "")
    params = (workspace, limit) if workspace is not None else (limit,)
    return f"SELECT {_COLS} FROM cairn_sessions WHERE {where} ORDER BY updated_at DESC LIMIT ?", params


def children_query(parent_ids: list[str]) -> tuple[str, tuple]:
    """Sub-agent sessions of the given parents (shared with ``cairn.checkpoints.readonly``)."""
    marks = ", ".join("?" for _ in parent_ids) or "''"
    sql = f"SELECT {_COLS}, {_LINKS} FROM cairn_sessions WHERE parent_id IN ({marks}) ORDER BY created_at"
    return sql, tuple(parent_ids)


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
    #: For a sub-agent session: its parent session and the parent's tool call that started it.
    parent_id: str = ""
    call_id: str = ""
    agent: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


class SessionIndex:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)  # older databases get the link columns from migrations (steps 4-6)

    def create(
        self,
        thread_id: str,
        *,
        workspace: str,
        mode: str,
        model: str,
        parent_id: str = "",
        call_id: str = "",
        agent: str = "",
    ) -> None:
        now = time.time()
        self.db.write(
            f"INSERT INTO cairn_sessions ({_COLS}, {_LINKS}) "
            "VALUES (?, ?, ?, ?, 'new', '', ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING",
            (
                thread_id,
                workspace,
                now,
                now,
                mode,
                escape_text(model),
                parent_id,
                call_id,
                escape_text(agent),
            ),
        )

    def set_agent(self, thread_id: str, agent: str) -> None:
        """Replace a sub-agent's request record (e.g. with its worktree's diff summary)."""
        self.db.write(
            "UPDATE cairn_sessions SET agent = ? WHERE thread_id = ?", (escape_text(agent), thread_id)
        )

    def update(
        self, thread_id: str, *, status: str | None = None, title: str | None = None, mode: str | None = None
    ) -> None:
        """Set status/mode; the title is set once (from the first prompt, escaped: see ``text_escape``)."""
        self.db.write(*self.update_statement(thread_id, status=status, title=title, mode=mode))

    @staticmethod
    def update_statement(
        thread_id: str, *, status: str | None = None, title: str | None = None, mode: str | None = None
    ) -> tuple[str, tuple]:
        """``update``'s statement, for a caller that commits it with other writes."""
        title = escape_optional(title)
        return (
            "UPDATE cairn_sessions SET updated_at = ?, status = COALESCE(?, status), "
            "title = CASE WHEN title = '' AND CAST(? AS TEXT) IS NOT NULL THEN ? ELSE title END, "
            "mode = COALESCE(?, mode) WHERE thread_id = ?",
            (time.time(), status, title, title, mode, thread_id),
        )

    def get(self, thread_id: str) -> SessionRecord | None:
        rows = self.db.query(
            f"SELECT {_COLS}, {_LINKS} FROM cairn_sessions WHERE thread_id = ?", (thread_id,)
        )
        return SessionRecord(*rows[0]) if rows else None

    def children(self, parent_id: str) -> list[SessionRecord]:
        """Sub-agent sessions started by ``parent_id``, oldest first."""
        sql, params = children_query([parent_id])
        return [SessionRecord(*r) for r in self.db.query(sql, params)]

    def find(self, prefix: str) -> list[SessionRecord]:
        """Sessions whose id starts with ``prefix`` (people type short ids)."""
        scope = "1 = 1" if "-sub-" in prefix else _TOP_LEVEL  # a sub-agent's id names it whole
        rows = self.db.query(
            f"SELECT {_COLS} FROM cairn_sessions WHERE substr(thread_id, 1, CAST(? AS INTEGER)) = ? "
            f"AND {scope} "
            "ORDER BY updated_at DESC",
            (len(prefix), prefix),
        )
        return [SessionRecord(*r) for r in rows]

    def resolve(self, wanted: str) -> tuple[SessionRecord | None, str]:
        """The session ``wanted`` names (its id, or a prefix matching exactly one), or
        ``(None, why)``: "no session" or "N sessions" matching it."""
        record = self.get(wanted)
        if record is not None:
            return record, ""
        matches = self.find(wanted)
        if len(matches) == 1:
            return matches[0], ""
        return None, "no session" if not matches else f"{len(matches)} sessions"

    def list(self, workspace: str | None = None, *, limit: int = 200) -> list[SessionRecord]:
        """Top-level sessions, newest first (sub-agent sessions are left out)."""
        sql, params = list_query(workspace, limit)
        return [SessionRecord(*r) for r in self.db.query(sql, params)]

    def delete(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_sessions WHERE thread_id = ?", (thread_id,))
