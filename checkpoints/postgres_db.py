"""``Database`` over a psycopg 3 connection pool: the same methods, Postgres underneath.

cairn's SQL is written once (see ``cairn.checkpoints.db``); ``translate`` turns it into
Postgres SQL: ``?`` → ``%s`` (a literal ``%`` → ``%%``), ``CROSS JOIN x ON`` → ``JOIN x ON``
(SQLite's join-order hint), and in DDL SQLite's ``INTEGER``/``REAL``/``BLOB`` → ``BIGINT``/
``DOUBLE PRECISION``/``BYTEA`` (nanosecond mtimes and ``time.time()`` need the wide types).

Every ``write`` commits before it returns (``synchronous_commit`` is the server's, on by
default), and ``transaction()``/``write_many`` are one Postgres transaction each, so the
journal's "executing before the call, result the moment it ends" holds as on SQLite.
Driver errors leave as ``StoreBusy`` (lock timeout, deadlock, serialization failure, pool
exhausted) or ``StoreError`` (anything else: the server went away, a bad statement).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool, PoolTimeout

from cairn.checkpoints.db import Database
from cairn.checkpoints.errors import StoreBusy, StoreError

#: Serializes cairn's DDL across processes: concurrent ``CREATE TABLE IF NOT EXISTS`` of the
#: same table can fail on Postgres (a unique violation in the catalog).
SCHEMA_LOCK_KEY = 0x6361_6972_6E00  # "cairn\0"
#: Held by ``cairn.checkpoints.migrations.migrate`` while it applies steps.
MIGRATION_LOCK_KEY = SCHEMA_LOCK_KEY + 1

#: How often a process waiting for cairn's migration lock asks again, and for how long.
LOCK_POLL_S = 0.05
MIGRATION_WAIT_S = 600.0
#: The longest any statement of cairn's (or PostgresSaver's) waits for a lock before it fails
#: as ``StoreBusy``: a lock held that long is a stuck peer, and the run should stop resumable
#: rather than hang (``lock_timeout`` on every pooled connection; advisory locks count too).
LOCK_TIMEOUT_S = 60.0


@contextmanager
def advisory_lock(conn: psycopg.Connection, key: int) -> Iterator[None]:
    """A session-level advisory lock on an autocommit ``conn``, waited for by polling.

    Never a blocking ``pg_advisory_lock``: a statement blocked on it is an open transaction,
    and ``PostgresSaver.setup()``'s ``CREATE INDEX CONCURRENTLY`` in the lock holder waits for
    every open transaction to end — a deadlock the server cannot see (it goes through the
    holder's other connection).  Between polls no transaction is open.
    """
    cursor = conn.cursor(row_factory=tuple_row)
    deadline = time.monotonic() + MIGRATION_WAIT_S
    while not cursor.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:  # type: ignore[index]
        if time.monotonic() > deadline:
            raise StoreBusy(
                f"database: another process has been setting up or migrating this database for "
                f"{MIGRATION_WAIT_S:.0f} s; try again when it is done"
            )
        time.sleep(LOCK_POLL_S)
    try:
        yield
    finally:
        cursor.execute("SELECT pg_advisory_unlock(%s)", (key,))


_DDL_TYPES = (
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b"), "BYTEA"),
)
_CROSS_JOIN = re.compile(r"\bCROSS JOIN\b", re.IGNORECASE)
_CREATE_IF_MISSING = re.compile(
    r"(?:\s*--[^\n]*\n)*\s*CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s+IF\s+NOT\s+EXISTS\s+(\w+)",
    re.IGNORECASE,
)


@lru_cache(maxsize=512)
def translate(sql: str, *, ddl: bool = False) -> str:
    """cairn's SQL (SQLite spelling) as Postgres SQL."""
    out = sql.replace("%", "%%").replace("?", "%s")
    out = _CROSS_JOIN.sub("JOIN", out)
    if ddl:
        for pattern, replacement in _DDL_TYPES:
            out = pattern.sub(replacement, out)
    return out


_BUSY = (
    pg_errors.LockNotAvailable,
    pg_errors.DeadlockDetected,
    pg_errors.SerializationFailure,
    pg_errors.QueryCanceled,
)


def as_store_error(exc: BaseException) -> StoreError:
    """A psycopg / pool error as cairn's own."""
    busy = isinstance(exc, (*_BUSY, PoolTimeout))
    return (StoreBusy if busy else StoreError)(f"database: {exc}")


@contextmanager
def translated_errors() -> Iterator[None]:
    try:
        yield
    except (psycopg.Error, PoolTimeout) as exc:
        raise as_store_error(exc) from exc


class _Conn:
    """What ``Database.transaction()`` yields on SQLite: ``execute(sql, params)`` → cursor."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.Cursor:
        cursor = self._conn.cursor(row_factory=tuple_row)
        cursor.execute(translate(sql), params)
        return cursor


class PostgresDatabase(Database):
    """cairn's tables on Postgres; connections come from the pool the saver uses too."""

    dialect = "postgres"

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self.conn = None  # type: ignore[assignment]
        self.lock = threading.RLock()  # only for callers that serialize their own work
        #: Tables and indexes seen to exist (cairn never drops one while running).
        self._known: set[str] = set()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        with translated_errors(), self.pool.connection() as conn:
            yield conn

    def write(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._connection() as conn:
            conn.cursor(row_factory=tuple_row).execute(translate(sql), params)

    def write_many(self, statements: Iterable[tuple[str, Sequence[Any]]]) -> None:
        with self._connection() as conn, conn.transaction():
            cursor = conn.cursor(row_factory=tuple_row)
            for sql, params in statements:
                cursor.execute(translate(sql), params)

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._connection() as conn:
            return conn.cursor(row_factory=tuple_row).execute(translate(sql), params).fetchall()

    @contextmanager
    def stream(self, sql: str, params: Sequence[Any] = ()) -> Iterator[Iterator[tuple[Any, ...]]]:
        """A server-side cursor: rows arrive in small batches, so stopping early reads less."""
        with (
            self._connection() as conn,
            conn.transaction(),
            conn.cursor(name="cairn_stream", row_factory=tuple_row) as cursor,
        ):
            cursor.itersize = 16
            cursor.execute(translate(sql), params)
            yield iter(cursor)

    def script(self, sql: str) -> None:
        """DDL, serialized across processes by a transaction-scoped advisory lock.

        A script of ``CREATE ... IF NOT EXISTS`` whose objects all exist already (every open of
        an existing database, every prune) is skipped without a lock or a transaction:
        ``CREATE INDEX IF NOT EXISTS`` takes a SHARE lock on its table even when the index is
        there, which waits for every open write to that table and, while it waits, holds up
        every new one — in every process using the database.
        """
        statements = _statements(sql)
        names = [m.group(1) for m in map(_CREATE_IF_MISSING.match, statements) if m]
        if len(names) == len(statements) and self._existing(names):
            return
        with self._connection() as conn, conn.transaction():
            cursor = conn.cursor(row_factory=tuple_row)
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
            for statement in statements:
                cursor.execute(translate(statement, ddl=True), ())

    def _existing(self, names: list[str]) -> bool:
        """Do all these tables/indexes exist in the schema cairn creates them in?"""
        missing = [n for n in names if n not in self._known]
        if missing:
            rows = self.query(
                "SELECT n FROM unnest(?::text[]) AS n WHERE to_regclass(format('%I.%I', current_schema(), n)) "
                "IS NOT NULL",
                (missing,),
            )
            self._known.update(r[0] for r in rows)
        return all(n in self._known for n in names)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._connection() as conn, conn.transaction():
            yield _Conn(conn)


def _statements(sql: str) -> list[str]:
    """A script's statements (cairn's DDL has no ``;`` inside a statement)."""
    return [part.strip() for part in sql.split(";") if part.strip()]
