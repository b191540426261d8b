"""pytest fixtures for running tests on PostgreSQL as well as SQLite (imported by tests/conftest.py).

- ``pg_server`` (session): ``$CAIRN_TEST_PG_URL`` (``.ci/run`` starts a cluster and sets it),
  else a throwaway cluster started for this pytest run (``tests.support.pg_cluster``).  Under
  pytest-xdist each worker uses its own database on the shared server (``worker_database``).  When
  neither works the Postgres tests are skipped with the reason — and under ``CI=true`` the run
  fails (see ``pytest_sessionfinish`` in tests/conftest.py).
- ``pg_url``: a fresh schema per test on that server (``search_path`` in the URL), so tests
  never see each other's sessions and need no cleanup.
- ``db_location``: parametrized ``sqlite`` / ``postgres`` (the test ids say which), and the
  test's default location (``CAIRN_DB``).  ``tests/support/store_guard.py`` fails a test that
  opens a SQLite store without it (unless marked ``sqlite_only``).
"""

from __future__ import annotations

import os
import uuid
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

PG_ENV = "CAIRN_TEST_PG_URL"
SKIP_PREFIX = "PostgreSQL unavailable"
#: Why Postgres tests were skipped in this run (empty when they ran).
skipped_because: list[str] = []


def with_schema(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}"


def worker_database(url: str) -> str:
    """Under pytest-xdist, the URL of this worker's own database on the server (created on
    first use), so workers never share server-wide state such as advisory locks; else ``url``."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    import psycopg
    from psycopg import sql

    name = f"cairn_{worker}"
    with psycopg.connect(url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


@pytest.fixture(scope="session")
def pg_server():
    url = os.environ.get(PG_ENV)
    if url:
        yield worker_database(url)
        return
    from tests.support import pg_cluster

    try:
        root, url = pg_cluster.start()
    except Exception as exc:  # no binaries, initdb/pg_ctl failed, no psycopg...
        reason = f"{SKIP_PREFIX}: {exc}"
        skipped_because.append(reason)
        pytest.skip(reason)
    try:
        yield url
    finally:
        pg_cluster.stop(root)


@pytest.fixture
def pg_url(pg_server) -> str:
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:16]
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return with_schema(pg_server, schema)


@pytest.fixture(params=["sqlite", "postgres"])
def db_location(request, tmp_path, monkeypatch) -> str:
    """A database location on each backend: a SQLite file, or a fresh Postgres schema.

    It is also the default location for the test (``CAIRN_DB``), so Sessions opened without
    ``db=`` and ``cairn`` subprocesses use it too: ``pytestmark =
    pytest.mark.usefixtures("db_location")`` runs a whole module on both backends.
    """
    location = str(tmp_path / "cairn.db") if request.param == "sqlite" else request.getfixturevalue("pg_url")
    monkeypatch.setenv("CAIRN_DB", location)
    return location
