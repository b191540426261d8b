"""A read-only database file or directory: readers work, writers say why they cannot.

Root ignores ``chmod``, so as root the commands run under ``setpriv`` with the capabilities
that bypass file permissions dropped (``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``,
``CAP_FOWNER``): the process then obeys the permission bits like any user.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import cairn_cmd

pytestmark = [
    pytest.mark.slow,
    pytest.mark.sqlite_only("file and directory permissions are a property of the SQLite file"),
]

DROP = ("dac_override", "dac_read_search", "fowner")


def reader_prefix() -> list[str]:
    """How to run a command that obeys file permissions (nothing to add for a non-root user)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: chmod cannot be made to bite")
    caps = ",".join(f"-{c}" for c in DROP)
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", "--"]


@pytest.fixture
def saved_session(cli_env, workspace, script, tmp_path):
    """A database in its own directory holding one finished session: (db path, session id)."""
    db = tmp_path / "store" / "cairn.db"
    db.parent.mkdir()
    env = {**cli_env, "CAIRN_DB": str(db)}
    model = script([{"content": "Hello there."}])
    p = subprocess.run(
        [*cairn_cmd(), "-p", "hi", "--model", model, "--output-format", "json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    yield db, json.loads(p.stdout)["session_id"]
    db.parent.chmod(0o755)  # let pytest clean up


@pytest.fixture
def as_reader(cli_env, workspace, saved_session):
    db, _ = saved_session
    prefix = reader_prefix()
    probe = subprocess.run([*prefix, "touch", str(db.parent / "probe")], capture_output=True)
    db.parent.chmod(0o555)
    blocked = subprocess.run([*prefix, "touch", str(db.parent / "probe2")], capture_output=True)
    db.parent.chmod(0o755)
    if probe.returncode != 0 or blocked.returncode == 0:
        pytest.skip("cannot run a process that obeys file permissions here (capabilities not droppable)")
    (db.parent / "probe").unlink()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, *cairn_cmd(), *args],
            cwd=workspace,
            env={**cli_env, "CAIRN_DB": str(db)},
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run


def checkpoint_wal(db: Path) -> None:
    """Fold the WAL into the file and drop the -wal/-shm files, as after a clean close."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)


@pytest.mark.parametrize("what", ["file", "directory", "both"])
def test_readers_work_and_writers_say_why(saved_session, as_reader, what):
    db, sid = saved_session
    checkpoint_wal(db)  # no -shm to reuse: a reader in a read-only directory cannot make one
    before = db.read_bytes()
    if what in ("file", "both"):
        db.chmod(0o444)
    if what in ("directory", "both"):
        db.parent.chmod(0o555)

    listed = as_reader("sessions")
    assert listed.returncode == 0, listed.stderr
    assert sid[:12] in listed.stdout and "hi" in listed.stdout
    as_json = as_reader("sessions", "--json")
    assert as_json.returncode == 0 and json.loads(as_json.stdout)[0]["session_id"] == sid

    shown = as_reader("show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "Hello there." in shown.stdout
    doc = as_reader("show", sid, "--json")
    assert doc.returncode == 0, doc.stderr
    assert json.loads(doc.stdout)["messages"][-1]["content"] == "Hello there."
    agents = as_reader("agents", "list", sid)
    assert agents.returncode == 0, agents.stderr

    for writer in (("-p", "more", "--model", "script:/nonexistent"), ("resume", sid, "-p", "more")):
        refused = as_reader(*writer)
        assert refused.returncode == 2, refused.stderr
        reason = "the file is read-only" if what != "directory" else "directory"
        assert f"cannot write to the database at {db}" in refused.stderr
        assert reason in refused.stderr and "Traceback" not in refused.stderr
        assert "pass --db with a writable file" in refused.stderr

    assert db.read_bytes() == before  # nothing was written
    if what != "file":
        assert sorted(p.name for p in db.parent.iterdir() if not p.name.endswith(".locks")) == ["cairn.db"]
