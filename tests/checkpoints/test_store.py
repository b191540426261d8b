import json
import sqlite3

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn.checkpoints import StorageConfigError, open_store
from cairn.checkpoints.location import default_location


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "c.db")
    yield s
    s.close()


def test_default_location_uses_cairn_home(monkeypatch, tmp_path):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CAIRN_DB", raising=False)
    assert default_location() == str(tmp_path / "home" / "cairn.db")
    monkeypatch.setenv("CAIRN_DB", str(tmp_path / "x.db"))
    assert default_location() == str(tmp_path / "x.db")


def test_sqlite_pragmas(store):
    conn = store.db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000


def test_unsupported_locations_are_clear_errors():
    with pytest.raises(StorageConfigError, match="Postgres"):
        open_store("postgresql://localhost/cairn")
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


def test_journal_survives_reopen(tmp_path):
    s = open_store(tmp_path / "c.db")
    s.journal.mark_executing("th", {"call_id": "c1", "tool_name": "bash", "arguments": {}})
    s.close()
    s2 = open_store(tmp_path / "c.db")
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


def test_concurrent_reader_waits_instead_of_failing(tmp_path):
    s = open_store(tmp_path / "c.db")
    other = sqlite3.connect(tmp_path / "c.db")
    assert other.execute("SELECT count(*) FROM cairn_sessions").fetchone()[0] == 0
    other.close()
    s.close()
