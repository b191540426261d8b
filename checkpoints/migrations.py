"""cairn's schema versions: numbered steps, applied once per database, SQLite and Postgres alike.

``cairn_schema_version`` records every step a database has had.  ``migrate`` applies the
missing ones in order, each in its own transaction with its version row, under a lock
(SQLite's write lock; a transaction-scoped advisory lock on Postgres), so two processes
opening a new database at once do not both migrate it.

Each table module still declares its tables and indexes with ``CREATE ... IF NOT EXISTS``
when it is constructed, so an index added to a module's ``SCHEMA`` reaches existing
databases without a step.  Steps are for what is not idempotent by itself: a new column on
an existing table (``add_column``), a data rewrite, or simply recording that a table exists.

Adding something later is one entry at the end of ``MIGRATIONS``:

    Step(4, "rewind snapshots", sql=snapshots.SCHEMA),   # or run=... for code
    Step(5, "journal: compaction marker", run=add_column("cairn_tool_journal", "compacted", "INTEGER")),

Databases written before versioning (no version table) are migrated from version 0: the
steps are written so that re-applying them to such a database is harmless.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from cairn.checkpoints.db import Database

VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS cairn_schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Step:
    version: int
    name: str
    #: Idempotent DDL (``CREATE ... IF NOT EXISTS``), in cairn's SQL dialect.
    sql: str = ""
    #: Or code, for what SQL cannot say idempotently on both engines.
    run: Callable[[Database], None] | None = None


def columns(db: Database, table: str) -> set[str]:
    if db.dialect == "postgres":
        rows = db.query(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = ? AND table_schema = current_schema()",
            (table,),
        )
    else:
        rows = [(r[1],) for r in db.query(f"PRAGMA table_info({table})")]
    return {r[0] for r in rows}


def add_column(table: str, column: str, sql_type: str) -> Callable[[Database], None]:
    """A step that adds ``column`` unless the table has it already."""

    def run(db: Database) -> None:
        if column not in columns(db, table):
            db.script(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}")

    return run


def _base_tables(db: Database) -> None:
    from cairn.checkpoints import file_reads, journal, pruning, sessions, transcript

    db.script("".join(m.SCHEMA for m in (journal, transcript, sessions, file_reads, pruning)))


def _decisions_table(db: Database) -> None:
    from cairn.checkpoints import decisions

    db.script(decisions.SCHEMA)


MIGRATIONS: tuple[Step, ...] = (
    Step(1, "journal, transcript, session index, file reads, prune marks", run=_base_tables),
    # Databases from before the call log kept decisions and diffs.
    Step(2, "journal: details column", run=add_column("cairn_tool_journal", "details", "TEXT")),
    Step(3, "recorded decisions (approvals from another process)", run=_decisions_table),
    Step(
        4,
        "session index: sub-agent parent",
        run=add_column("cairn_sessions", "parent_id", "TEXT NOT NULL DEFAULT ''"),
    ),
    Step(
        5,
        "session index: sub-agent call",
        run=add_column("cairn_sessions", "call_id", "TEXT NOT NULL DEFAULT ''"),
    ),
    Step(
        6,
        "session index: sub-agent request",
        run=add_column("cairn_sessions", "agent", "TEXT NOT NULL DEFAULT ''"),
    ),
)

LATEST = MIGRATIONS[-1].version


def current_version(db: Database) -> int:
    db.script(VERSION_TABLE)
    rows = db.query("SELECT COALESCE(MAX(version), 0) FROM cairn_schema_version")
    return int(rows[0][0])


def migrate(db: Database) -> list[int]:
    """Bring ``db`` to ``LATEST``; returns the versions applied (empty when up to date)."""
    if current_version(db) >= LATEST:
        return []
    applied: list[int] = []
    with _exclusive(db):
        done = current_version(db)  # again, under the lock: another process may have migrated
        for step in MIGRATIONS:
            if step.version <= done:
                continue
            if step.sql:
                db.script(step.sql)
            if step.run is not None:
                step.run(db)
            db.write(
                "INSERT INTO cairn_schema_version (version, name, applied_at) VALUES (?, ?, ?) "
                "ON CONFLICT (version) DO NOTHING",
                (step.version, step.name, time.time()),
            )
            applied.append(step.version)
    return applied


@contextmanager
def _exclusive(db: Database) -> Iterator[None]:
    """One migrator at a time: a session-level advisory lock on Postgres.  On SQLite every
    step is idempotent, so a racing second migrator only repeats harmless steps."""
    if db.dialect != "postgres":
        yield
        return
    from cairn.checkpoints.postgres_db import MIGRATION_LOCK_KEY, advisory_lock

    with db.pool.connection() as conn, advisory_lock(conn, MIGRATION_LOCK_KEY):  # type: ignore[attr-defined]
        yield
