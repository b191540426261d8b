"""Pruning old checkpoints of a thread without breaking anything that reads them.

cairn's messages live in the transcript table, not in a delta channel, so any
remaining checkpoint is self-contained and deleting others cannot make it
unreadable.  We keep the newest ``keep_last`` checkpoints and, older than that,
only *turn boundaries* (checkpoints whose next node is ``reasoning``: the
points a person would rewind to); intermediate checkpoints of a tool cycle go,
with the pending writes of every pruned-range checkpoint.  Parent pointers of kept checkpoints are re-linked
to the nearest kept ancestor so history stays a chain.
"""

from __future__ import annotations

from typing import Any

from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_prune_marks (
    thread_id TEXT PRIMARY KEY,
    watermark TEXT NOT NULL
);
"""

BOUNDARY_CHANNEL = "branch:to:reasoning"
#: Free pages (4 KB each) a SQLite database keeps before pruning gives them back.
RECLAIM_MIN_PAGES = 16


def prune_thread(
    db: Database, serde: Any, thread_id: str, *, keep_last: int = 20, min_batch: int = 40
) -> int:
    """Delete intermediate checkpoints older than the newest ``keep_last``.

    Only checkpoints newer than the previous prune are examined, and nothing is
    done until at least ``min_batch`` of them have accumulated, so calling this
    after every run costs one small query.  Returns how many were deleted.
    """
    layout: SqliteLayout | PostgresLayout = (
        PostgresLayout() if db.dialect == "postgres" else SqliteLayout(serde)
    )
    keep_last = max(1, keep_last)  # the newest checkpoint is where the session stands: never pruned
    if not getattr(db, "_prune_marks_ready", False):  # once per connection, not every run
        db.script(SCHEMA)
        db._prune_marks_ready = True  # type: ignore[attr-defined]
    mark_rows = db.query("SELECT watermark FROM cairn_prune_marks WHERE thread_id = ?", (thread_id,))
    watermark = mark_rows[0][0] if mark_rows else ""
    rows = layout.recent(db, thread_id, watermark)  # (id, parent, is_boundary), newest first
    candidates = rows[keep_last:]
    if len(candidates) < min_batch:
        layout.reclaim(db)  # pages other tables freed since (the journal's compaction, pending writes)
        return 0
    # Oldest first, so re-linking can follow the chain forward.
    candidates.reverse()
    doomed = {cid for cid, _parent, boundary in candidates if not boundary}
    new_watermark = candidates[-1][0]
    parent_of = {cid: parent for cid, parent, _ in rows}

    def kept_ancestor(cid: str | None) -> str | None:
        while cid is not None and cid in doomed:
            cid = parent_of.get(cid)
        return cid

    relinks = [
        (cid, kept_ancestor(parent)) for cid, parent, _ in rows if cid not in doomed and parent in doomed
    ]
    # Pending writes of old checkpoints only matter for resuming *from* them mid-step; a rewind
    # to an old turn boundary re-runs its next node anyway, so they go for everything older
    # than the newest ``keep_last`` checkpoints.
    oldest_recent = rows[keep_last - 1][0]
    statements = layout.deletions(thread_id, doomed, relinks, oldest_recent)
    statements.append(
        (
            "INSERT INTO cairn_prune_marks (thread_id, watermark) VALUES (?, ?) "
            "ON CONFLICT(thread_id) DO UPDATE SET watermark = excluded.watermark",
            (thread_id, new_watermark),
        )
    )
    db.write_many(statements)
    layout.reclaim(db)
    return len(doomed)


Statements = list[tuple[str, tuple]]


#: Whether a checkpoint is a turn boundary, by (thread, checkpoint id): a checkpoint never
#: changes once written, and until a batch is due every run's prune reads the same recent ones.
_BOUNDARIES: dict[tuple[str, str], bool] = {}
MAX_REMEMBERED_BOUNDARIES = 50_000


class SqliteLayout:
    """``SqliteSaver``'s tables: ``checkpoints`` (the whole checkpoint, serialized) and ``writes``."""

    def __init__(self, serde: Any) -> None:
        self.serde = serde

    def recent(self, db: Database, thread_id: str, watermark: str) -> list[tuple[str, str | None, bool]]:
        rows = db.query(
            "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id > ? ORDER BY checkpoint_id DESC",
            (thread_id, watermark),
        )
        if len(_BOUNDARIES) > MAX_REMEMBERED_BOUNDARIES:
            _BOUNDARIES.clear()
        out = []
        for cid, parent, type_tag, blob in rows:
            key = (thread_id, cid)
            boundary = _BOUNDARIES.get(key)
            if boundary is None:
                checkpoint = self.serde.loads_typed((type_tag, blob))
                boundary = _BOUNDARIES[key] = BOUNDARY_CHANNEL in checkpoint.get("channel_values", {})
            out.append((cid, parent, boundary))
        return out

    def deletions(
        self, thread_id: str, doomed: set[str], relinks: list[tuple[str, str | None]], oldest_recent: str
    ) -> Statements:
        return _common_deletions("checkpoints", "writes", thread_id, doomed, relinks, oldest_recent)

    def reclaim(self, db: Database) -> None:
        """Give free pages back to the file system once there are ``RECLAIM_MIN_PAGES`` of them
        (fewer are left for the next inserts to reuse)."""
        with db.lock:
            free = db.conn.execute("PRAGMA freelist_count").fetchone()[0]
            if free >= RECLAIM_MIN_PAGES:
                # Not ``execute``: Python's sqlite3 steps the pragma once, which frees one page.
                db.conn.executescript("PRAGMA incremental_vacuum;")


class PostgresLayout:
    """``PostgresSaver``'s tables: ``checkpoints`` (JSONB, primitive channel values inline),
    ``checkpoint_blobs`` (other values, per channel and version) and ``checkpoint_writes``."""

    def recent(self, db: Database, thread_id: str, watermark: str) -> list[tuple[str, str | None, bool]]:
        # A channel has a value in a checkpoint if it is inline, or if a non-empty blob exists
        # at the version the checkpoint records for it.
        rows = db.query(
            "SELECT c.checkpoint_id, c.parent_checkpoint_id, "
            "jsonb_exists(c.checkpoint -> 'channel_values', ?) OR EXISTS (SELECT 1 FROM checkpoint_blobs b "
            "WHERE b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = ? "
            "AND b.version = c.checkpoint -> 'channel_versions' ->> ? AND b.type <> 'empty') "
            "FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = '' AND c.checkpoint_id > ? "
            "ORDER BY c.checkpoint_id DESC",
            (BOUNDARY_CHANNEL, BOUNDARY_CHANNEL, BOUNDARY_CHANNEL, thread_id, watermark),
        )
        return [(cid, parent, bool(boundary)) for cid, parent, boundary in rows]

    def deletions(
        self, thread_id: str, doomed: set[str], relinks: list[tuple[str, str | None]], oldest_recent: str
    ) -> Statements:
        statements = _common_deletions(
            "checkpoints", "checkpoint_writes", thread_id, doomed, relinks, oldest_recent
        )
        # Blobs are shared between checkpoints (one row per channel version): drop the versions
        # no remaining checkpoint refers to.
        statements.append(
            (
                "DELETE FROM checkpoint_blobs b WHERE b.thread_id = ? AND b.checkpoint_ns = '' AND NOT EXISTS "
                "(SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = '' "
                "AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)",
                (thread_id,),
            )
        )
        return statements

    def reclaim(self, db: Database) -> None:
        pass  # autovacuum gives the space back


def _common_deletions(
    checkpoints: str,
    writes: str,
    thread_id: str,
    doomed: set[str],
    relinks: list[tuple[str, str | None]],
    oldest_recent: str,
) -> Statements:
    statements: Statements = [
        (
            f"UPDATE {checkpoints} SET parent_checkpoint_id = ? WHERE thread_id = ? "
            "AND checkpoint_ns = '' AND checkpoint_id = ?",
            (parent, thread_id, cid),
        )
        for cid, parent in relinks
    ]
    statements += [
        (
            f"DELETE FROM {checkpoints} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
            (thread_id, cid),
        )
        for cid in doomed
    ]
    statements.append(
        (
            f"DELETE FROM {writes} WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id < ?",
            (thread_id, oldest_recent),
        )
    )
    return statements
