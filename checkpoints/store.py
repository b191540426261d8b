"""Opening cairn's storage: one location → saver, journal, transcript, session index."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from cairn.checkpoints.db import Database
from cairn.checkpoints.file_reads import FileReadLog
from cairn.checkpoints.journal import ToolJournal
from cairn.checkpoints.location import resolve_location
from cairn.checkpoints.pruning import prune_thread
from cairn.checkpoints.sessions import SessionIndex
from cairn.checkpoints.snapshot_log import SnapshotLog
from cairn.checkpoints.transcript import Transcript


class StorageConfigError(ValueError):
    """The database location cannot be used (bad URL, missing driver)."""


@dataclass
class Store:
    """Everything a session persists, in one database."""

    location: str
    saver: BaseCheckpointSaver
    db: Database
    journal: ToolJournal
    transcript: Transcript
    sessions: SessionIndex
    file_reads: FileReadLog
    snapshots: SnapshotLog

    def prune(self, thread_id: str, *, keep_last: int = 20, min_batch: int = 40) -> int:
        return prune_thread(self.db, self.saver.serde, thread_id, keep_last=keep_last, min_batch=min_batch)

    def delete_thread(self, thread_id: str) -> None:
        self.saver.delete_thread(thread_id)
        self.journal.delete_thread(thread_id)
        self.transcript.delete_thread(thread_id)
        self.sessions.delete(thread_id)
        self.file_reads.delete_thread(thread_id)
        self.snapshots.delete_thread(thread_id)

    def close(self) -> None:
        conn: Any = getattr(self.saver, "conn", None)
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass


def open_store(location: str | os.PathLike[str] | None = None) -> Store:
    """Open (creating if needed) the store at ``location``.

    ``None`` → ``$CAIRN_DB`` or the default file in the user state directory;
    ``":memory:"`` → a private in-memory database; a path → a SQLite file;
    ``postgresql://...`` → not supported yet.  The nodes only use ``Store``'s
    objects, so Postgres needs no node changes: it needs ``PostgresSaver`` and
    ports of cairn's tables (their SQL uses SQLite's ``INSERT OR REPLACE/IGNORE``
    and pruning reads SqliteSaver's table layout).
    """
    loc = resolve_location(location)
    if loc.startswith(("postgres://", "postgresql://")):
        raise StorageConfigError(
            "Postgres storage is not available in this version of cairn; use a SQLite path "
            "(the default) or ':memory:'."
        )
    if "://" in loc:
        raise StorageConfigError(f"unsupported database location {loc!r}: use a file path or ':memory:'")
    from cairn.checkpoints.sqlite import CompactSqliteSaver, connect

    conn = connect(loc)
    saver = CompactSqliteSaver(conn)
    saver.setup()
    db = Database(conn, saver.lock)
    return Store(
        location=loc,
        saver=saver,
        db=db,
        journal=ToolJournal(db),
        transcript=Transcript(db),
        sessions=SessionIndex(db),
        file_reads=FileReadLog(db),
        snapshots=SnapshotLog(db),
    )
