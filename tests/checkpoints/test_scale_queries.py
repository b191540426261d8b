"""What keeps per-cycle storage cost flat: indexed journal queries, bulk message rebuilding."""

from __future__ import annotations

import pytest
from langchain_core.messages import (
    AIMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    message_to_dict,
    messages_from_dict,
)

from cairn.checkpoints import open_store
from cairn.checkpoints.transcript import build_messages, decode, encode


@pytest.fixture
def store():
    """SQLite in memory: the query plans below are SQLite's (EXPLAIN QUERY PLAN)."""
    s = open_store(":memory:")
    yield s
    s.close()


@pytest.fixture
def any_store(db_location):
    s = open_store(db_location)
    yield s
    s.close()


def _plan(store, sql: str) -> str:
    return " ".join(row[-1] for row in store.db.query("EXPLAIN QUERY PLAN " + sql, ("t",)))


def test_next_seq_and_compaction_use_indexes_not_a_scan(store):
    next_seq = _plan(store, "SELECT COALESCE(MAX(seq), 0) + 1 FROM cairn_tool_journal WHERE thread_id = ?")
    assert "USING COVERING INDEX cairn_tool_journal_seq" in next_seq
    compact = _plan(
        store,
        "UPDATE cairn_tool_journal SET result = NULL WHERE thread_id = ? AND result IS NOT NULL "
        "AND status IN ('success', 'error', 'cancelled', 'interrupted') AND call_id NOT IN ('x')",
    )
    assert "USING INDEX cairn_tool_journal_kept" in compact


def test_compaction_keeps_the_turn_in_flight_and_drops_older_outputs(any_store):
    journal = any_store.journal
    for i in range(3):
        call = {"call_id": f"c{i}", "tool_name": "blob", "arguments": {"n": i}, "status": "success"}
        journal.mark_executing("t", call)
        journal.record("t", call, result={"output": f"out {i}"})
    journal.compact("t", keep=["c2"])
    entries = {e.call_id: e for e in journal.entries("t")}
    assert [e.call_id for e in journal.entries("t")] == ["c0", "c1", "c2"]
    assert entries["c0"].result is None and entries["c1"].result is None
    assert entries["c2"].result == {"output": "out 2"}


MESSAGES = [
    SystemMessage("be brief"),
    HumanMessage("hi"),
    HumanMessage(
        content=[{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}]
    ),
    AIMessage(
        "calling",
        tool_calls=[{"name": "bash", "args": {"command": "ls"}, "id": "c1"}],
        invalid_tool_calls=[{"name": "x", "args": "{", "id": "c2", "error": "bad"}],
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        response_metadata={"model_name": "m"},
    ),
    ToolMessage("out" * 400, tool_call_id="c1", name="bash", status="error"),
    ChatMessage(content="other role", role="critic"),
]


def test_bulk_rebuild_equals_validated_messages():
    stored = [decode(encode(message_to_dict(m))) for m in MESSAGES]
    fast = build_messages(stored)
    slow = messages_from_dict(stored)
    assert fast == slow
    assert [type(m) for m in fast] == [type(m) for m in MESSAGES]
    assert fast[3].tool_calls[0]["args"] == {"command": "ls"}
    assert fast[3].usage_metadata["total_tokens"] == 5


def test_unknown_fields_fall_back_to_validation():
    stored = message_to_dict(HumanMessage("hi"))
    stored["data"]["from_a_future_version"] = 1
    assert build_messages([stored])[0].content == "hi"


def test_read_returns_the_chain_oldest_first_after_reopen(db_location):
    db = db_location
    first = open_store(db)
    head = first.transcript.append("t", None, [HumanMessage(f"m{i}") for i in range(50)])
    first.transcript.append("t", head, [HumanMessage("other branch")])
    first.close()
    again = open_store(db)
    try:
        assert [m.content for m in again.transcript.read("t", head)] == [f"m{i}" for i in range(50)]
    finally:
        again.close()
