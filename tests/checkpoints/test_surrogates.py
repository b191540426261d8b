"""Any string survives the store: lone surrogates (undecodable bytes kept by surrogateescape, a
model's ``\\udcff``) and NUL round-trip through the journal, the transcript, checkpoints and the
file-read log, on SQLite and PostgreSQL; descriptive columns hold their escaped form."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from cairn.checkpoints import fastjson, open_store
from cairn.checkpoints.lossless_serde import LosslessSerializer
from cairn.checkpoints.text_escape import escape_text, load_key, store_key

BAD_NAME = b"bad\xff.txt".decode("utf-8", "surrogateescape")  # 'bad\udcff.txt'
LATIN1 = b"caf\xe9 cr\xe8me".decode("utf-8", "surrogateescape")
ODD = "high \ud800 low \udfff nul \x00 end"


@pytest.fixture
def store(db_location):
    s = open_store(db_location)
    yield s
    s.close()


@pytest.mark.parametrize("text", [BAD_NAME, LATIN1, ODD, "plain é ✓"])
def test_fastjson_round_trips_any_string(text):
    doc = {"path": text, text: [text, 1]}
    stored = fastjson.dumps(doc)
    stored.encode("utf-8")  # what a TEXT column needs
    assert fastjson.loads(stored) == doc
    assert fastjson.loads(fastjson.dumps_bytes(doc)) == doc


def test_escape_text_is_the_tools_display_form():
    assert escape_text(BAD_NAME) == "bad\\xff.txt"
    assert escape_text(ODD) == "high \\ud800 low \\udfff nul \\x00 end"
    assert escape_text("plain é") == "plain é"


@pytest.mark.parametrize("path", [BAD_NAME, "/ws/" + LATIN1, "/ws/plain.txt", "json:odd"])
def test_store_key_round_trips(path):
    assert load_key(store_key(path)) == path
    store_key(path).encode("utf-8")


def test_journal_keeps_arguments_and_results_exactly(store):
    call = {
        "call_id": "c1",
        "tool_name": "read_file",
        "arguments": {"file_path": BAD_NAME, "note": ODD},
        "status": "error",
        "summary": f"read {BAD_NAME}",
        "error_msg": f"no such file: {ODD}",
        "reason": LATIN1,
    }
    assert store.journal.mark_executing("t1", {**call, "attempt": 1})
    store.journal.record("t1", call, result={"output": ODD}, details={"shown": LATIN1})
    [entry] = store.journal.entries("t1")
    assert entry.arguments == {"file_path": BAD_NAME, "note": ODD}
    assert entry.result == {"output": ODD}
    assert entry.details == {"shown": LATIN1}
    assert entry.summary == "read bad\\xff.txt"
    assert entry.error_msg == "no such file: " + escape_text(ODD)
    assert entry.reason == escape_text(LATIN1)


def test_transcript_round_trips_surrogates_and_nul(store):
    long = ODD * 100  # compressed above COMPRESS_ABOVE
    messages = [
        HumanMessage(LATIN1),
        AIMessage(content=ODD, tool_calls=[{"name": "ls", "args": {"path": BAD_NAME}, "id": "x"}]),
        ToolMessage(content=long, tool_call_id="x"),
    ]
    head = store.transcript.append("t2", None, messages)
    store.transcript._cache.clear()  # read from the database, not the in-process cache
    back = store.transcript.read("t2", head)
    assert [m.content for m in back] == [LATIN1, ODD, long]
    assert back[1].tool_calls[0]["args"] == {"path": BAD_NAME}


def test_session_title_and_file_reads(store):
    from types import SimpleNamespace

    store.sessions.create("t3", workspace="/ws", mode="default", model="m")
    store.sessions.update("t3", title=LATIN1, status="running")
    assert store.sessions.get("t3").title == escape_text(LATIN1)
    record = SimpleNamespace(path="/ws/" + BAD_NAME, mtime_ns=1, size=2, sha256="ab")
    store.file_reads.save("t3", record)
    assert store.file_reads.load("t3") == [("/ws/" + BAD_NAME, 1, 2, "ab")]
    store.file_reads.forget("t3", "/ws/" + BAD_NAME)
    assert store.file_reads.load("t3") == []


def test_langgraph_serializer_loses_what_ours_keeps():
    state = {"pending_tool_calls": [{"arguments": {"file_path": BAD_NAME, "text": ODD}}], "n": 1}
    upstream = JsonPlusSerializer()
    assert upstream.loads_typed(upstream.dumps_typed(state)) != state  # '?' in place of the byte
    ours = LosslessSerializer()
    assert ours.loads_typed(ours.dumps_typed(state)) == state
    plain = {"a": "é", "b": [1, 2]}
    assert ours.dumps_typed(plain) == upstream.dumps_typed(plain)  # same bytes when nothing to keep


def test_checkpointed_state_keeps_surrogates(store):
    from langgraph.checkpoint.base import empty_checkpoint

    config = {"configurable": {"thread_id": "t4", "checkpoint_ns": ""}}
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"pending_tool_calls": [{"arguments": {"file_path": BAD_NAME}}]}
    checkpoint["channel_versions"] = {"pending_tool_calls": 1}
    store.saver.put(config, checkpoint, {}, {"pending_tool_calls": 1})
    got = store.saver.get_tuple(config)
    assert got.checkpoint["channel_values"]["pending_tool_calls"] == [{"arguments": {"file_path": BAD_NAME}}]
