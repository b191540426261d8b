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


def prune_thread(
    db: Database, serde: Any, thread_id: str, *, keep_last: int = 20, min_batch: int = 40
) -> int:
    """Delete intermediate checkpoints older than the newest ``keep_last``.

    Only checkpoints newer than the previous prune are examined, and nothing is
    done until at least ``min_batch`` of them have accumulated, so calling this
    after every run costs one small query.  Returns how many were deleted.
    """
    keep_last = max(1, keep_last)  # the newest checkpoint is where the session stands: never pruned
    db.script(SCHEMA)
    mark_rows = db.query("SELECT watermark FROM cairn_prune_marks WHERE thread_id = ?", (thread_id,))
    watermark = mark_rows[0][0] if mark_rows else ""
    rows = db.query(
        "SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint FROM checkpoints "
        "WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id > ? ORDER BY checkpoint_id DESC",
        (thread_id, watermark),
    )
    candidates = rows[keep_last:]
    if len(candidates) < min_batch:
        return 0
    # Oldest first, so re-linking can follow the chain forward.
    candidates.reverse()
    doomed: set[str] = set()
    for cid, _parent, type_tag, blob in candidates:
        checkpoint = serde.loads_typed((type_tag, blob))
        if BOUNDARY_CHANNEL not in checkpoint.get("channel_values", {}):
            doomed.add(cid)
    new_watermark = candidates[-1][0]
    parent_of = {cid: parent for cid, parent, _, _ in rows}

    def kept_ancestor(cid: str | None) -> str | None:
        while cid is not None and cid in doomed:
            cid = parent_of.get(cid)
        return cid

    statements: list[tuple[str, tuple]] = []
    for cid, parent, _, _ in rows:
        if cid in doomed:
            continue
        if parent in doomed:
            statements.append(
                (
                    "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? "
                    "AND checkpoint_ns = '' AND checkpoint_id = ?",
                    (kept_ancestor(parent), thread_id, cid),
                )
            )
    for cid in doomed:
        statements.append(
            (
                "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
                (thread_id, cid),
            )
        )
    # Pending writes of old checkpoints only matter for resuming *from* them mid-step; a rewind
    # to an old turn boundary re-runs its next node anyway, so they go for everything older
    # than the newest ``keep_last`` checkpoints.
    oldest_recent = rows[keep_last - 1][0]
    statements.append(
        (
            "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id < ?",
            (thread_id, oldest_recent),
        )
    )
    statements.append(
        (
            "INSERT INTO cairn_prune_marks (thread_id, watermark) VALUES (?, ?) "
            "ON CONFLICT(thread_id) DO UPDATE SET watermark = excluded.watermark",
            (thread_id, new_watermark),
        )
    )
    db.write_many(statements)
    with db.lock:
        db.conn.execute("PRAGMA incremental_vacuum")
        db.conn.commit()
    return len(doomed)
