"""Every test that opens a store on SQLite also runs on PostgreSQL (issue 18).

An autouse fixture (``tests/conftest.py``) watches each test that is *not* parametrized over
the backends (it does not use ``db_location``) and fails it when it opened a SQLite store:

- in this process: any ``cairn.checkpoints.sqlite.connect`` of a file;
- in subprocesses (the CLI, kill drivers, notebook kernels): a SQLite database left at the top
  of the test's ``tmp_path`` or in the state directory (``$CAIRN_HOME``, where the default
  location lives).

A test (or module) that is SQLite-specific by nature says so with
``@pytest.mark.sqlite_only("why")`` — a migration of an old SQLite file, file locks, file size.
``:memory:`` stores are private to one process and are not counted (the tests that use them
test something else than storage).

``CAIRN_TEST_STORE_AUDIT=FILE`` records instead of failing: one line per test that opened a
store, with what it opened (in-memory ones included), appended to FILE.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

AUDIT_ENV = "CAIRN_TEST_STORE_AUDIT"
SQLITE_MAGIC = b"SQLite format 3\x00"


def _is_sqlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def _sqlite_files(folder: Path | None) -> set[str]:
    if folder is None or not folder.is_dir():
        return set()
    try:
        entries = list(folder.iterdir())
    except OSError:
        return set()
    return {str(p) for p in entries if p.is_file() and _is_sqlite_file(p)}


@pytest.fixture(autouse=True)
def _store_backend_guard(request, monkeypatch, _isolated_home):
    if "db_location" in request.fixturenames and not os.environ.get(AUDIT_ENV):
        yield
        return
    import cairn.checkpoints.sqlite as sqlite_module

    opened: list[str] = []
    real_connect = sqlite_module.connect

    def recording_connect(location: str):
        opened.append(location)
        return real_connect(location)

    monkeypatch.setattr(sqlite_module, "connect", recording_connect)
    tmp = Path(request.getfixturevalue("tmp_path")) if "tmp_path" in request.fixturenames else None
    home = Path(os.environ["CAIRN_HOME"]) if os.environ.get("CAIRN_HOME") else None
    before = _sqlite_files(tmp) | _sqlite_files(home)
    yield
    files = {loc for loc in opened if loc != ":memory:"}
    files |= (_sqlite_files(tmp) | _sqlite_files(home)) - before
    audit = os.environ.get(AUDIT_ENV)
    if audit:
        if files or opened:
            backend = "both" if "db_location" in request.fixturenames else "sqlite"
            memory = sum(1 for loc in opened if loc == ":memory:")
            with open(audit, "a") as fh:
                fh.write(f"{request.node.nodeid}\t{backend}\tfiles={len(files)}\tmemory={memory}\n")
        return
    if files and request.node.get_closest_marker("sqlite_only") is None:
        pytest.fail(
            "this test opened a SQLite store but does not run on PostgreSQL: use the `db_location` "
            "fixture (or `pytestmark = pytest.mark.usefixtures('db_location')`, which also points "
            "CAIRN_DB at it), or mark it `@pytest.mark.sqlite_only('why')`. Opened: "
            + ", ".join(sorted(files)),
            pytrace=False,
        )
