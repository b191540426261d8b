"""Read-only access to a SQLite store: ``cairn sessions`` (stdlib only) and ``cairn show``.

Readers never write: a database file or directory the person may only read (another user's
store, a mounted backup) is listed and shown all the same.  A WAL database normally needs
its ``-shm`` file created beside it even to be read; when the directory forbids that, the
file is opened ``immutable`` (SQLite then takes no locks: a writer running at that moment
could be seen half-way, which only a directory the reader cannot write could make happen).
"""

from __future__ import annotations

import sqlite3
import threading
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cairn.checkpoints.location import resolve_location
from cairn.checkpoints.sessions import SessionRecord, children_query, list_query
from cairn.errors import CairnError


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
    conn = connect_readonly(loc)
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


class ReadOnlyStoreError(CairnError, PermissionError):
    """A write was attempted on a store opened for reading (``cairn show`` never writes)."""


def connect_readonly(location: str, *, check_same_thread: bool = True) -> sqlite3.Connection:
    """A connection that cannot write to the SQLite file at ``location`` (see the module doc)."""
    if location == ":memory:":  # another process's in-memory database is not reachable: empty
        return sqlite3.connect(":memory:", check_same_thread=check_same_thread)
    uri = "file:" + _quote(location) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=10, check_same_thread=check_same_thread)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError as exc:
        conn.close()
        text = str(exc).lower()
        if "readonly" not in text and "unable to open" not in text:
            raise
    # The -shm file cannot be made (a read-only directory): read the file as it is.
    return sqlite3.connect(uri + "&immutable=1", uri=True, timeout=10, check_same_thread=check_same_thread)


def _quote(path: str) -> str:
    """``path`` for a ``file:`` URI (``?`` and ``#`` would end the path; ``%`` starts an escape)."""
    from urllib.parse import quote

    return quote(str(Path(path).absolute()), safe="/")


class ReadOnlyDatabase:
    """``Database``'s reading half over a read-only connection; writing raises a clear error.

    ``script`` (the tables' ``CREATE ... IF NOT EXISTS``) does nothing: the schema is the one
    on disk, which the writer that made the file created.
    """

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, location: str) -> None:
        self.conn = conn
        self.lock = threading.RLock()
        self.location = location

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def stream(self, sql: str, params: Sequence[Any] = ()) -> Any:
        from contextlib import contextmanager

        @contextmanager
        def rows() -> Any:
            with self.lock:
                cursor = self.conn.execute(sql, params)
                try:
                    yield iter(cursor)
                finally:
                    cursor.close()

        return rows()

    def script(self, sql: str) -> None:
        pass

    def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        raise ReadOnlyStoreError(f"{self.location} was opened read-only: this command does not write")

    def write_many(self, statements: Any) -> None:
        self.write("")

    def transaction(self) -> Any:
        self.write("")


def open_readonly_store(location: str) -> Any:
    """The ``Store`` at the SQLite file ``location``, opened so that nothing can write to it.

    For ``cairn show`` and other readers: no migration, no schema step, no WAL switch.
    """
    from cairn.checkpoints.lossless_serde import LosslessSerializer
    from cairn.checkpoints.sqlite import CompactSqliteSaver
    from cairn.checkpoints.store import Store

    conn = connect_readonly(location, check_same_thread=False)
    saver = CompactSqliteSaver(conn, serde=LosslessSerializer())
    saver.is_setup = True  # its setup() creates tables and switches to WAL: writes
    db = ReadOnlyDatabase(conn, location)
    # Every other part of a Store is a table object built from the database alone.
    parts: dict[str, Any] = {"location": location, "saver": saver, "db": db}
    for name, kind in typing.get_type_hints(Store).items():
        if name not in parts:
            parts[name] = kind(db)
    return Store(**parts)
