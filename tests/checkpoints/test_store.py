import json
import sqlite3

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn.checkpoints import StorageConfigError, open_store
from cairn.checkpoints.location import default_location
from cairn.checkpoints.migrations import LATEST


@pytest.fixture
def store(db_location):
    s = open_store(db_location)
    yield s
    s.close()


@pytest.fixture
def sqlite_store(tmp_path):
    s = open_store(tmp_path / "c.db")
    yield s
    s.close()


def test_default_location_uses_cairn_home(monkeypatch, tmp_path):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CAIRN_DB", raising=False)
    assert default_location() == str(tmp_path / "home" / "cairn.db")
    monkeypatch.setenv("CAIRN_DB", str(tmp_path / "x.db"))
    assert default_location() == str(tmp_path / "x.db")


@pytest.mark.sqlite_only("SQLite's PRAGMAs (WAL, synchronous, busy timeout)")
def test_sqlite_pragmas(sqlite_store):
    conn = sqlite_store.db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_unsupported_locations_are_clear_errors():
    with pytest.raises(StorageConfigError, match="unsupported"):
        open_store("redis://x")


def test_transcript_append_read_and_fork(store):
    t = store.transcript
    h1 = t.append("th", None, [HumanMessage("hi"), AIMessage("hello")])
    h2 = t.append("th", h1, [HumanMessage("more")])
    t._cache.clear()
    assert [m.content for m in t.read("th", h2)] == ["hi", "hello", "more"]
    # A fork from h1 does not disturb the other branch.
    h3 = t.append("th", h1, [HumanMessage("other")])
    t._cache.clear()
    assert [m.content for m in t.read("th", h3)] == ["hi", "hello", "other"]
    assert [m.content for m in t.read("th", h2)] == ["hi", "hello", "more"]
    assert t.read("th", None) == []
    with pytest.raises(LookupError):
        t.read("th", "missing")


def test_transcript_roundtrips_tool_calls(store):
    ai = AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "a"}, "id": "c1"}])
    tm = ToolMessage("x", tool_call_id="c1", name="read_file", status="error")
    head = store.transcript.append("th", None, [ai, tm])
    store.transcript._cache.clear()
    got = store.transcript.read("th", head)
    assert got[0].tool_calls[0]["id"] == "c1"
    assert got[1].tool_call_id == "c1" and got[1].status == "error"


def test_transcript_prune_unreachable(store):
    t = store.transcript
    h1 = t.append("th", None, [HumanMessage("a")])
    keep = t.append("th", h1, [HumanMessage("b")])
    t.append("th", h1, [HumanMessage("orphan")])
    assert t.prune_unreachable("th", [keep]) == 1
    t._cache.clear()
    assert [m.content for m in t.read("th", keep)] == ["a", "b"]


def test_journal_lifecycle(store):
    j = store.journal
    call = {
        "call_id": "c1",
        "tool_name": "bash",
        "arguments": {"command": "ls"},
        "risk": "LOW",
        "reason": "r",
    }
    j.mark_executing("th", call)
    e = j.get_many("th", ["c1"])["c1"]
    assert e.status == "executing" and not e.terminal and e.arguments == {"command": "ls"}
    j.record("th", {**call, "status": "success", "summary": "ls: 3 entries"}, result={"output": "a b c"})
    e = j.get_many("th", ["c1"])["c1"]
    assert e.terminal and e.result == {"output": "a b c"} and e.summary == "ls: 3 entries"
    j.record("th", {"call_id": "c2", "tool_name": "write_file", "status": "cancelled", "error_msg": "no"})
    assert [x.call_id for x in j.entries("th")] == ["c1", "c2"]
    j.compact("th", keep=[])
    assert j.get_many("th", ["c1"])["c1"].result is None
    assert j.get_many("th", ["c1"])["c1"].summary == "ls: 3 entries"


def test_journal_survives_reopen(db_location):
    s = open_store(db_location)
    s.journal.mark_executing("th", {"call_id": "c1", "tool_name": "bash", "arguments": {}})
    s.close()
    s2 = open_store(db_location)
    assert s2.journal.get_many("th", ["c1"])["c1"].status == "executing"
    s2.close()


def test_session_index(store):
    idx = store.sessions
    idx.create("abc123", workspace="/w", mode="default", model="m")
    idx.update("abc123", status="done", title="first prompt")
    idx.update("abc123", title="second prompt")
    rec = idx.get("abc123")
    assert rec.status == "done" and rec.title == "first prompt"
    assert [r.session_id for r in idx.find("abc")] == ["abc123"]
    assert idx.find("zzz") == []
    assert [r.session_id for r in idx.list("/w")] == ["abc123"]
    assert idx.list("/other") == []
    json.dumps(rec.to_dict())


def test_in_memory_store():
    s = open_store(":memory:")
    h = s.transcript.append("t", None, [HumanMessage("x")])
    assert len(s.transcript.read("t", h)) == 1
    s.close()


@pytest.mark.sqlite_only("a second sqlite3 connection to the file while the store has it open")
def test_concurrent_reader_waits_instead_of_failing(tmp_path):
    s = open_store(tmp_path / "c.db")
    other = sqlite3.connect(tmp_path / "c.db")
    assert other.execute("SELECT count(*) FROM cairn_sessions").fetchone()[0] == 0
    other.close()
    s.close()


def test_journal_claims_a_call_once_per_attempt(store):
    call = {"call_id": "c1", "tool_name": "bash", "arguments": {}}
    assert store.journal.mark_executing("th", call) is True
    assert store.journal.mark_executing("th", call) is False, "a second claim at the same attempt"
    assert store.journal.mark_executing("th", {**call, "attempt": 1}) is True, "an explicit retry"


def test_file_reads_and_unicode_roundtrip(store):
    from types import SimpleNamespace

    rec = SimpleNamespace(path="d/ü.py", mtime_ns=1_795_000_000_123_456_789, size=3, sha256="ab")
    store.file_reads.save("th", rec)
    store.file_reads.save("th", SimpleNamespace(**{**vars(rec), "size": 4}))
    assert store.file_reads.load("th") == [("d/ü.py", 1_795_000_000_123_456_789, 4, "ab")]
    big = "naïve ✓ " * 500  # compressed, and JSON escapes survive on both engines
    head = store.transcript.append("th", None, [HumanMessage('quote " backslash \\ ' + big)])
    store.transcript._cache.clear()
    assert store.transcript.read("th", head)[0].content == 'quote " backslash \\ ' + big


def test_session_listing_leaves_out_sub_agents(store):
    store.sessions.create("parent1", workspace="/w", mode="default", model="")
    store.sessions.create("parent1-sub-c1-x", workspace="/w", mode="plan", model="")
    assert [r.session_id for r in store.sessions.list("/w")] == ["parent1"]
    assert [r.session_id for r in store.sessions.find("parent")] == ["parent1"]


def test_recorded_decisions(store):
    store.decisions.record("th", {"c1": "approve", "c2": {"reject": "no"}}, by="me")
    assert store.decisions.load("th", ["c1", "c2", "c3"]) == {"c1": "approve", "c2": {"reject": "no"}}
    store.decisions.clear("th", ["c1"])
    assert store.decisions.load("th", ["c1", "c2"]) == {"c2": {"reject": "no"}}


def test_schema_version_is_recorded_and_reopening_is_a_no_op(db_location):
    from cairn.checkpoints.migrations import LATEST, migrate

    s = open_store(db_location)
    try:
        rows = s.db.query("SELECT version FROM cairn_schema_version ORDER BY version")
        assert [r[0] for r in rows] == list(range(1, LATEST + 1))
        assert migrate(s.db) == []
    finally:
        s.close()


# The journal as the first released version created it: no ``details`` column, no version table.
OLD_SCHEMA = """
CREATE TABLE cairn_tool_journal (
    thread_id TEXT NOT NULL, call_id TEXT NOT NULL, seq INTEGER NOT NULL, tool_name TEXT NOT NULL,
    arguments TEXT NOT NULL, status TEXT NOT NULL, risk TEXT, reason TEXT, result TEXT, summary TEXT,
    error_msg TEXT, started_at REAL, ended_at REAL, attempt INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (thread_id, call_id)
);
CREATE TABLE cairn_messages (
    thread_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT, data BLOB NOT NULL, PRIMARY KEY (thread_id, id)
);
CREATE TABLE cairn_sessions (
    thread_id TEXT PRIMARY KEY, workspace TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
    status TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', mode TEXT NOT NULL DEFAULT 'default',
    model TEXT NOT NULL DEFAULT ''
);
INSERT INTO cairn_tool_journal (thread_id, call_id, seq, tool_name, arguments, status, attempt)
    VALUES ('old', 'c0', 1, 'bash', '{"command": "ls"}', 'success', 0);
INSERT INTO cairn_messages (thread_id, id, parent_id, data) VALUES ('old', 'm1', NULL, '{"type": "human", "data": {"content": "from before", "type": "human"}}');
INSERT INTO cairn_sessions VALUES ('old', '/w', 1.0, 2.0, 'done', 'an old session', 'default', '');
"""


@pytest.mark.sqlite_only(
    "an old SQLite file from before schema versions (no Postgres database predates them)"
)
def test_a_database_from_the_old_schema_is_migrated_and_keeps_its_data(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    conn.close()
    s = open_store(path)
    try:
        cols = {r[1] for r in s.db.query("PRAGMA table_info(cairn_tool_journal)")}
        assert "details" in cols
        [old] = s.journal.entries("old")
        assert old.status == "success" and old.details is None
        assert [m.content for m in s.transcript.read("old", "m1")] == ["from before"]
        assert s.sessions.get("old").title == "an old session"
        s.journal.record("old", {"call_id": "c1", "tool_name": "x", "status": "cancelled"}, details={"d": 1})
        assert s.journal.get_many("old", ["c1"])["c1"].details == {"d": 1}
        assert s.sessions.get("old").parent_id == ""  # sub-agent link columns were added
        versions = [r[0] for r in s.db.query("SELECT version FROM cairn_schema_version")]
        assert versions == list(range(1, LATEST + 1)) and LATEST >= 6
    finally:
        s.close()


def test_postgres_errors_reach_callers_as_store_errors(pg_url):
    from cairn.checkpoints import StoreError

    s = open_store(pg_url)
    try:
        with pytest.raises(StoreError, match="database"):
            s.db.query("SELECT no_such_column FROM cairn_sessions")
        with pytest.raises(StoreError), s.journal.db.transaction() as conn:
            conn.execute("SELECT 1/0")
    finally:
        s.close()


def test_unreachable_postgres_is_a_store_error(tmp_path):
    import socket

    from cairn.checkpoints import StoreError

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreError, match="connect"):
        open_store(f"postgresql://nobody@127.0.0.1:{port}/x")


def test_postgres_run_lock_is_exclusive_and_dies_with_its_connection(pg_url):
    from cairn.checkpoints.runlock import RunLocked

    s = open_store(pg_url)
    try:
        first = s.run_lock("sess")
        first.acquire()
        second = s.run_lock("sess")
        with pytest.raises(RunLocked, match="pid"):
            second.acquire()
        other = s.run_lock("another")
        other.acquire()  # other sessions are not affected
        other.release()
        first._conn.close()  # the connection dies (a crashed process, a lost host)
        second.acquire()
        second.release()
    finally:
        s.close()


def test_many_processes_open_a_new_postgres_database_at_once(pg_url):
    """Creating and migrating is serialized across processes without deadlocking (LangGraph's
    setup builds indexes CONCURRENTLY, which waits for every open transaction)."""
    import subprocess
    import sys

    code = (
        "import sys; from cairn.checkpoints import open_store; open_store(sys.argv[1]).close(); print('ok')"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, pg_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [err[-500:] for _, err in outs]
    s = open_store(pg_url)
    try:
        versions = [r[0] for r in s.db.query("SELECT version FROM cairn_schema_version ORDER BY version")]
        assert versions == list(range(1, LATEST + 1))
    finally:
        s.close()


def test_sessions_resolve_an_id_or_a_unique_prefix(store):
    store.sessions.create("abc111", workspace="/w", mode="default", model="")
    store.sessions.create("abc222", workspace="/w", mode="default", model="")
    assert store.sessions.resolve("abc111")[0].session_id == "abc111"
    assert store.sessions.resolve("abc2")[0].session_id == "abc222"
    assert store.sessions.resolve("abc") == (None, "2 sessions")
    assert store.sessions.resolve("zzz") == (None, "no session")
