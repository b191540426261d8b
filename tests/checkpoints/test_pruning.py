"""Pruning keeps every turn boundary and the newest checkpoints; what remains stays usable."""

from __future__ import annotations

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from tests.graph.conftest import Harness, effect


def test_prune_keeps_boundaries_and_every_remaining_checkpoint_reads(tmp_path, db_location):
    h = Harness(tmp_path, db_location)
    turns = [{"tool_calls": [effect(f"t{i}")]} for i in range(30)] + [{"content": "done"}]
    s = h.session(turns)
    assert s.send("go").status == "done"
    # a run prunes as it goes; force a last pass with no minimum batch
    s.store.prune(s.id, keep_last=5, min_batch=0)
    history = s.checkpoints(limit=1000)
    boundaries = [c for c in history if c["next"] == ["reasoning"]]
    assert len(boundaries) >= 30, "every turn boundary survives"
    assert len(history) < 30 * 4, "intermediate checkpoints were pruned"
    for snap in s.core.graph.get_state_history(s.core.config()):
        s.store.transcript.read(s.id, snap.values.get("head"))  # every head still resolves
    table = "checkpoint_writes" if s.store.backend == "postgres" else "writes"
    writes = s.store.db.query(f"SELECT count(*) FROM {table} WHERE thread_id = ?", (s.id,))[0][0]
    assert writes <= 5 * 8, "pending writes of old checkpoints are gone"
    assert [m.content for m in s.history()][-1] == "done"
    s.close()


def test_session_continues_normally_after_pruning(tmp_path, db_location):
    h = Harness(tmp_path, db_location)
    turns = [{"tool_calls": [effect(f"t{i}")]} for i in range(10)] + [
        {"content": "first done"},
        {"content": "second done"},
    ]
    s = h.session(turns)
    s.send("go")
    s.store.prune(s.id, keep_last=2, min_batch=0)
    s.close()
    again = Session.resume(s.id, db=h.db, model=ScriptedChatModel.from_turns(turns), tools=h.tools())
    r = again.send("and again")
    assert r.status == "done" and r.text == "second done"
    again.close()


def test_rewinding_to_an_older_boundary_forks_without_touching_the_original(tmp_path, db_location):
    h = Harness(tmp_path, db_location)
    turns = [{"tool_calls": [effect("a")]}, {"content": "done"}]
    s = h.session(turns)
    s.send("go")
    full = [m.content for m in s.history()]
    older = [c for c in s.checkpoints() if c["next"] == ["reasoning"]][-1]
    snap = s.core.graph.get_state(
        {"configurable": {"thread_id": s.id, "checkpoint_id": older["checkpoint_id"]}}
    )
    assert len(s.store.transcript.read(s.id, snap.values["head"])) < len(full)
    assert [m.content for m in s.history()] == full
    s.close()


@pytest.mark.sqlite_only("free pages and auto_vacuum are SQLite's; PostgreSQL's autovacuum does this")
def test_pruning_gives_freed_pages_back_to_the_file_system(tmp_path):
    """SQLite keeps deleted pages on its free list; pruning returns them (``auto_vacuum``)."""
    h = Harness(tmp_path)
    s = h.session([{"tool_calls": [effect(f"t{i}")]} for i in range(60)] + [{"content": "done"}])
    assert s.send("go").status == "done"
    conn = s.store.db.conn
    conn.execute("CREATE TABLE filler (x BLOB)")
    conn.executemany("INSERT INTO filler VALUES (?)", [(b"x" * 3000,) for _ in range(100)])
    conn.execute("DROP TABLE filler")
    conn.commit()
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] >= 100
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    s.store.prune(s.id)  # nothing left to prune: the free pages go back all the same
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert conn.execute("PRAGMA page_count").fetchone()[0] <= pages - 100
    s.close()
