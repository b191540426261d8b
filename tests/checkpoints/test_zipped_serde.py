"""Checkpoints are stored deflated in SQLite, and databases written before still read."""

from __future__ import annotations

import sqlite3

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from cairn import Session
from cairn.checkpoints.lossless_serde import LosslessSerializer
from cairn.checkpoints.sqlite import CompactSqliteSaver
from cairn.checkpoints.zipped_serde import MIN_BYTES, TAG_1, ZippedSerializer
from cairn.graph.models.scripted import ScriptedChatModel
from tests.graph.conftest import Harness, effect


def checkpoint_like(calls: int) -> dict:
    return {
        "channel_values": {
            "head": "dd6b26377c5f470aadb65ec32db7b113",
            "loop_memory": {"calls": {f"{i:016x}": [f"c{i}", "success", False, 0] for i in range(calls)}},
            "counters": {"model_calls": 499, "tool_calls": 498},
        },
        "channel_versions": {"head": 12, "loop_memory": 11, "branch:to:reasoning": 10},
        "updated_channels": ["head", "loop_memory"],
    }


def test_large_values_are_deflated_and_read_back_equal():
    serde = ZippedSerializer(LosslessSerializer())
    value = checkpoint_like(16)
    type_, data = serde.dumps_typed(value)
    plain = LosslessSerializer().dumps_typed(value)[1]
    assert len(plain) >= MIN_BYTES
    assert type_ == TAG_1 and len(data) < 0.6 * len(plain)
    assert serde.loads_typed((type_, data)) == value


def test_small_values_and_surrogates_stay_as_lossless_stores_them():
    serde = ZippedSerializer(LosslessSerializer())
    small = checkpoint_like(0)
    assert serde.dumps_typed(small) == LosslessSerializer().dumps_typed(small)
    odd = {"path": "bad\udcff.txt", "pad": "x" * MIN_BYTES}  # a lone surrogate, in a large value
    assert serde.loads_typed(serde.dumps_typed(odd)) == odd


def test_langgraphs_strict_allowlist_applies_inside_the_deflating_serializer(tmp_path):
    inner = LosslessSerializer(allowed_msgpack_modules=[("cairn_test_module", "Base")])
    saver = CompactSqliteSaver(sqlite3.connect(tmp_path / "c.db", check_same_thread=False), serde=inner)
    strict = saver.with_allowlist([("cairn_test_module", "Thing")])
    assert isinstance(strict.serde, ZippedSerializer) and strict.conn is saver.conn
    assert strict.serde.serde is not saver.serde.serde  # the inner one carries the allowlist
    value = checkpoint_like(16)
    assert strict.serde.loads_typed(strict.serde.dumps_typed(value)) == value
    saver.conn.close()


def test_values_stored_before_deflating_still_read():
    """A database written by an earlier cairn holds plain ``msgpack`` checkpoints."""
    value = checkpoint_like(16)
    old = JsonPlusSerializer().dumps_typed(value)
    assert old[0] == "msgpack"
    assert ZippedSerializer(LosslessSerializer()).loads_typed(old) == value


@pytest.mark.sqlite_only("deflating is SqliteSaver's: PostgresSaver stores each channel's blob apart")
def test_a_session_stores_deflated_checkpoints_and_resumes_from_them(tmp_path):
    h = Harness(tmp_path)
    s = h.session([{"tool_calls": [effect(f"t{i}")]} for i in range(20)] + [{"content": "done"}])
    assert s.send("go").status == "done"
    s.close()
    conn = sqlite3.connect(h.db)
    types = {t for (t,) in conn.execute("SELECT type FROM checkpoints")}
    conn.close()
    assert TAG_1 in types
    saver = CompactSqliteSaver(sqlite3.connect(h.db, check_same_thread=False), serde=LosslessSerializer())
    saved = saver.get_tuple({"configurable": {"thread_id": s.id, "checkpoint_ns": ""}})
    assert saved.checkpoint["channel_values"]["counters"]["tool_calls"] == 20
    saver.conn.close()
    again = Session.resume(
        s.id, db=h.db, model=ScriptedChatModel.from_turns([{"content": "again"}]), tools=h.tools()
    )
    assert again.send("more").status == "done"
    assert again.core.snapshot().values["counters"]["tool_calls"] == 20
    again.close()
