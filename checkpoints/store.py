"""Opening cairn's storage: one location → saver, journal, transcript, session index."""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from cairn.checkpoints.db import Database
from cairn.checkpoints.decisions import CHANNEL, DecisionLog
from cairn.checkpoints.errors import StorageConfigError
from cairn.checkpoints.file_reads import FileReadLog
from cairn.checkpoints.inbox import PromptInbox
from cairn.checkpoints.journal import ToolJournal
from cairn.checkpoints.location import is_postgres_url, resolve_location
from cairn.checkpoints.migrations import migrate
from cairn.checkpoints.pruning import prune_thread
from cairn.checkpoints.sessions import SessionIndex
from cairn.checkpoints.snapshot_log import SnapshotLog
from cairn.checkpoints.transcript import Transcript


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
    decisions: DecisionLog
    inbox: PromptInbox

    @property
    def backend(self) -> str:
        """``"sqlite"`` or ``"postgres"`` (for messages and docs; nodes never branch on it)."""
        return self.db.dialect

    def run_lock(self, session_id: str) -> Any:
        """The cross-process run lock for a session (``acquire()`` raises ``RunLocked``)."""
        from cairn.checkpoints.runlock import AdvisoryRunLock, FileRunLock, NoRunLock

        if self.backend == "postgres":
            return AdvisoryRunLock(self.location, session_id)
        if self.location == ":memory:":
            return NoRunLock()
        return FileRunLock(self.location, session_id)

    def listen(self, thread_id: str) -> Any:
        """A context manager whose ``wait(timeout)`` returns early when decisions are recorded
        for ``thread_id`` by any process (LISTEN/NOTIFY on Postgres, polling on SQLite)."""
        from cairn.checkpoints.signals import ListenWaiter, PollingWaiter

        if self.backend == "postgres":
            return ListenWaiter(self.location, CHANNEL, thread_id)
        return PollingWaiter()

    def prune(self, thread_id: str, *, keep_last: int = 20, min_batch: int = 40) -> int:
        return prune_thread(self.db, self.saver.serde, thread_id, keep_last=keep_last, min_batch=min_batch)

    def delete_thread(self, thread_id: str) -> None:
        self.saver.delete_thread(thread_id)
        self.journal.delete_thread(thread_id)
        self.transcript.delete_thread(thread_id)
        self.sessions.delete(thread_id)
        self.file_reads.delete_thread(thread_id)
        self.snapshots.delete_thread(thread_id)
        self.decisions.delete_thread(thread_id)
        self.inbox.delete_thread(thread_id)
        from cairn.checkpoints.hook_journal import HookJournal  # -- hooks (issue 32)

        HookJournal(self.db).delete_thread(thread_id)

    def close(self) -> None:
        """Close the SQLite connection or the Postgres pool (idempotent)."""
        conn: Any = getattr(self.saver, "conn", None)
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass


def open_store(location: str | os.PathLike[str] | None = None) -> Store:
    """Open (creating and migrating if needed) the store at ``location``.

    ``None`` → ``$CAIRN_DB`` or the default file in the user state directory;
    ``":memory:"`` → a private in-memory database; a path → a SQLite file;
    ``postgresql://...`` → Postgres (``PostgresSaver`` on a connection pool, cairn's
    tables beside LangGraph's).  The nodes only use ``Store``'s objects.
    """
    loc = resolve_location(location)
    saver: BaseCheckpointSaver
    if is_postgres_url(loc):
        from cairn.checkpoints.postgres_store import open_postgres

        saver, db = open_postgres(loc)
    elif "://" in loc:
        raise StorageConfigError(
            f"unsupported database location {loc!r}: use a file path, ':memory:' or a postgresql:// URL"
        )
    else:
        from cairn.checkpoints.lossless_serde import LosslessSerializer
        from cairn.checkpoints.sqlite import CompactSqliteSaver, connect

        conn = connect(loc)
        saver = CompactSqliteSaver(conn, serde=LosslessSerializer())
        saver.setup()
        db = Database(conn, saver.lock)
    try:
        migrate(db)
        store = Store(
            location=loc,
            saver=saver,
            db=db,
            journal=ToolJournal(db),
            transcript=Transcript(db),
            sessions=SessionIndex(db),
            file_reads=FileReadLog(db),
            decisions=DecisionLog(db),
            snapshots=SnapshotLog(db),
            inbox=PromptInbox(db),
        )
    except BaseException:
        closing: Any = getattr(saver, "conn", None)
        if closing is not None:
            closing.close()
        raise
    if store.backend == "postgres":  # a store dropped without close() still frees its pool
        weakref.finalize(store, saver.conn.close)  # type: ignore[attr-defined]
    return store
