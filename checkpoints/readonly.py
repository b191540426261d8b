"""Fast read-only access to the session index, for ``cairn sessions`` (stdlib only)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from cairn.checkpoints.location import resolve_location
from cairn.checkpoints.sessions import SessionRecord, children_query, list_query


def list_sessions(
    location: str | None = None, workspace: str | None = None, limit: int = 200
) -> list[SessionRecord]:
    """Sessions in the database at ``location`` (newest first), without opening a saver.

    A database that does not exist yet simply has no sessions.
    """
    loc = resolve_location(location)
    if "://" in loc:
        raise ValueError(f"cannot list sessions of {loc!r} without the full store")
    if loc != ":memory:" and not Path(loc).exists():
        return []
    conn = sqlite3.connect(f"file:{loc}?mode=ro", uri=True, timeout=10)
    try:
        try:
            rows = conn.execute(*list_query(workspace, limit)).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise
        try:  # sub-agents follow their parent
            kids = conn.execute(*children_query([r[0] for r in rows])).fetchall() if rows else []
        except sqlite3.OperationalError:  # a database from before sub-agent links
            kids = []
    finally:
        conn.close()
    return with_children([SessionRecord(*r) for r in rows], [SessionRecord(*r) for r in kids])


def with_children(parents: list[SessionRecord], kids: list[SessionRecord]) -> list[SessionRecord]:
    """Parents in order, each followed by its sub-agents (``parent_id`` set)."""
    out: list[SessionRecord] = []
    for parent in parents:
        out.append(parent)
        out.extend(k for k in kids if k.parent_id == parent.session_id)
    return out
