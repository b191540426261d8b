"""Opening a Postgres store: a psycopg 3 pool shared by ``PostgresSaver`` and cairn's tables.

Requires the ``postgres`` extra (``pip install 'cairn-agent[postgres]'``): langgraph-
checkpoint-postgres, psycopg 3 and psycopg-pool.  LangGraph's tables are created and
migrated by ``PostgresSaver.setup()``, cairn's by ``cairn.checkpoints.migrations``; both
are idempotent and serialized across processes, so any number of runners may open a new
database at once.
"""

from __future__ import annotations

from typing import Any

#: Connections per process.  ``tool_execution`` journals up to 10 parallel calls at once;
#: the run lock and a LISTEN use their own connections outside the pool.
POOL_MAX = 12
POOL_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 10


def open_postgres(url: str) -> tuple[Any, Any]:
    """``(saver, PostgresDatabase)`` for ``url``; raises ``StorageConfigError`` or ``StoreError``."""
    from cairn.checkpoints.errors import StorageConfigError

    try:
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise StorageConfigError(
            f"a postgresql:// database needs the postgres extra ({exc.name} is missing): "
            "pip install 'cairn-agent[postgres]'"
        ) from None
    import psycopg

    from cairn.checkpoints.errors import StoreError
    from cairn.checkpoints.lossless_serde import LosslessSerializer
    from cairn.checkpoints.postgres_db import PostgresDatabase, translated_errors

    try:  # one direct attempt first: a clear message at once instead of a pool timeout
        psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to the database: {str(exc).strip()}") from None
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=POOL_MAX,
        timeout=POOL_TIMEOUT_S,
        # What PostgresSaver requires; cairn's own queries ask for tuple rows per cursor.
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        configure=_configure,
        open=False,
        name="cairn",
    )
    try:
        with translated_errors():
            pool.open(wait=True, timeout=POOL_TIMEOUT_S)
            saver = PostgresSaver(pool, serde=LosslessSerializer())
            _setup_saver(pool, saver)
    except BaseException:
        pool.close()
        raise
    return saver, PostgresDatabase(pool)


def _configure(conn: Any) -> None:
    """Every pooled connection: a lock wait ends in an error (``StoreBusy``), never in a hang."""
    from cairn.checkpoints.postgres_db import LOCK_TIMEOUT_S

    conn.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_S * 1000)}")


def _setup_saver(pool: Any, saver: Any) -> None:
    """``PostgresSaver.setup()`` under cairn's migration lock (it is not safe to race)."""
    from cairn.checkpoints.postgres_db import MIGRATION_LOCK_KEY, advisory_lock

    with pool.connection() as conn, advisory_lock(conn, MIGRATION_LOCK_KEY):
        saver.setup()
