"""A minimal shared handle on the database that holds checkpoints and cairn's own tables.

cairn's tables (journal, transcript, sessions) live beside LangGraph's
checkpoint tables in the same database and share the saver's connection and
lock, so one file (or one Postgres database) is the whole state of a session.

SQL is written once, in the subset SQLite and PostgreSQL share, with ``?``
placeholders and SQLite's type names; ``cairn.checkpoints.postgres_db`` translates
placeholders, ``CROSS JOIN`` and DDL types for Postgres.  Rules for new SQL:
``INSERT ... ON CONFLICT`` (never ``INSERT OR REPLACE/IGNORE``), ``CAST(? AS TEXT)``
where a parameter's type is otherwise unknown (``? IS NULL``), no SQLite-only
functions (``instr``, ``json_extract``), no ``PRAGMA`` outside ``sqlite.py``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from cairn.checkpoints.errors import StoreBusy, StoreError


class Database:
    """Serialized access to one SQLite connection; every ``write`` commits before returning.

    ``PostgresDatabase`` offers the same methods over a connection pool.
    """

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, lock: threading.Lock | threading.RLock) -> None:
        self.conn = conn
        self.lock = lock

    def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self.lock:
            self.conn.execute(sql, params)
            self.conn.commit()

    def write_many(self, statements: Iterable[tuple[str, Sequence[Any]]]) -> None:
        """Several statements in one transaction (all or nothing)."""
        with self.lock:
            try:
                for sql, params in statements:
                    self.conn.execute(sql, params)
                self.conn.commit()
            except BaseException:
                self.conn.rollback()
                raise

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    @contextmanager
    def stream(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Iterator[tuple[Any, ...]]]:
        """Rows as the database produces them (stop early to read less), under the lock."""
        with self.lock:
            cursor = self.conn.execute(sql, params)
            try:
                yield iter(cursor)
            finally:
                cursor.close()

    def script(self, sql: str) -> None:
        with self.lock:
            self.conn.executescript(sql)
            self.conn.commit()

    @contextmanager
    def transaction(self):
        """One transaction; a driver's operational error leaves as ``StoreBusy``/``StoreError``."""
        with self.lock:
            try:
                yield self.conn
                self.conn.commit()
            except sqlite3.OperationalError as exc:
                self.conn.rollback()
                raise as_store_error(exc) from exc
            except BaseException:
                self.conn.rollback()
                raise


def as_store_error(exc: sqlite3.OperationalError) -> StoreError:
    text = str(exc).lower()
    busy = "locked" in text or "busy" in text
    return (StoreBusy if busy else StoreError)(f"database: {exc}")
