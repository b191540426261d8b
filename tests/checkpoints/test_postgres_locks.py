"""On PostgreSQL no process waits forever on another: opening a database does not queue behind
(and hold up) other processes' writes, and a lock held by a stuck peer ends in ``StoreBusy``.

PostgreSQL-only by nature: the SQLite store has one writer at a time and a busy timeout.
"""

from __future__ import annotations

import threading

import psycopg
import pytest

import cairn.checkpoints.postgres_db as postgres_db
from cairn.checkpoints import StoreBusy, open_store


def _in_thread(target) -> tuple[threading.Thread, dict]:
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = target()
        except BaseException as exc:  # reported by the caller
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_opening_a_store_does_not_wait_for_another_process_writing(pg_url):
    open_store(pg_url).close()  # the tables exist
    writer = psycopg.connect(pg_url)  # another process, in the middle of a journal write
    try:
        writer.execute(
            "INSERT INTO cairn_tool_journal (thread_id, call_id, seq, tool_name, arguments, status) "
            "VALUES ('t', 'c1', 1, 'bash', '{}', 'executing')"
        )
        # ``CREATE INDEX IF NOT EXISTS`` on every open used to queue for a SHARE lock behind
        # this transaction (and hold up every later write to the table while it waited).
        thread, outcome = _in_thread(lambda: open_store(pg_url).close())
        thread.join(30)
        assert not thread.is_alive(), "opening the store waited for another process's write"
        assert "error" not in outcome, outcome.get("error")
    finally:
        writer.rollback()
        writer.close()


def test_a_lock_held_by_a_stuck_peer_is_store_busy_not_a_hang(pg_url, monkeypatch):
    monkeypatch.setattr(postgres_db, "LOCK_TIMEOUT_S", 1.0)
    store = open_store(pg_url)
    stuck = psycopg.connect(pg_url)
    try:
        stuck.execute("LOCK TABLE cairn_tool_journal IN ACCESS EXCLUSIVE MODE")  # and never commits
        thread, outcome = _in_thread(
            lambda: store.journal.mark_executing("t", {"call_id": "c1", "tool_name": "bash", "arguments": {}})
        )
        thread.join(30)
        assert not thread.is_alive(), "the write waited for the lock without end"
        assert isinstance(outcome.get("error"), StoreBusy), outcome
    finally:
        stuck.rollback()
        stuck.close()
    assert store.journal.mark_executing("t", {"call_id": "c1", "tool_name": "bash", "arguments": {}})
    store.close()


def test_waiting_for_another_process_to_migrate_is_bounded(pg_url, monkeypatch):
    open_store(pg_url).close()
    monkeypatch.setattr(postgres_db, "MIGRATION_WAIT_S", 0.5)
    holder = psycopg.connect(pg_url, autocommit=True)
    try:
        holder.execute("SELECT pg_advisory_lock(%s)", (postgres_db.MIGRATION_LOCK_KEY,))
        with pytest.raises(StoreBusy, match="migrating"):
            open_store(pg_url)
    finally:
        holder.close()
    open_store(pg_url).close()  # the holder went away: opening works again
