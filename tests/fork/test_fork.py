"""``Session.fork``: a new session from an earlier checkpoint; the source untouched, nothing shared."""

from __future__ import annotations

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.graph.session.errors import SessionError
from tests.cli.conftest import call

TURNS = [
    {
        "tool_calls": [call("read_file", "r1", file_path="a.txt")],
        "usage": {"input_tokens": 1000, "output_tokens": 10},
    },
    {"content": "a.txt says hello.", "usage": {"input_tokens": 1000, "output_tokens": 10}},
    {"tool_calls": [call("write_file", "w1", file_path="b.txt", content="new\n")]},
    {"content": "Wrote b.txt."},
]


@pytest.fixture
def two_turns(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    s = Session(ws, model=ScriptedChatModel(turns=TURNS, model_name="gpt-4o"), db=db_location)
    assert s.send("read a.txt").status == "done"
    s.send("now write b.txt")
    yield s
    s.close()


def _texts(session):
    return [(m.type, m.text) for m in session.history()]


def test_fork_before_a_turn_leaves_the_source_untouched(two_turns):
    s = two_turns
    assert s.status == "awaiting_approval"
    before = (_texts(s), s.state, s.status, [m.id for m in s.history()])
    fork = s.fork(turn=2)
    try:
        assert fork.id != s.id
        assert _texts(fork) == _texts(s)[:4]  # the first turn: message, call, result, answer
        assert fork.status == "done" and not fork.pending()
        assert not set(m.id for m in fork.history()) & set(before[3]), "its own copies of the messages"
        r = fork.send("write c.txt instead")  # the fork goes its own way
        assert r.status == "awaiting_approval" and r.pending[0].tool_name == "write_file"
        assert fork.state.get("spend", {}).keys() == {"gpt-4o"}
        assert (_texts(s), s.state, s.status, [m.id for m in s.history()]) == before, "source untouched"
        assert s.pending()[0].call_id == "w1"
    finally:
        fork.close()


def test_fork_shares_nothing_mutable(two_turns):
    s = two_turns
    fork = s.fork(turn=2)
    try:
        assert fork.store is not s.store and fork.core.registry is not s.core.registry
        assert fork.core.graph is not s.core.graph and fork.core.pricing is not s.core.pricing
        state = fork.state
        state["counters"]["model_calls"] = 999  # a copy handed out, never the source's
        assert s.state["counters"]["model_calls"] != 999
        assert fork.state["counters"] == s.fork(turn=2).state["counters"]
        assert "spend" not in fork.state or not fork.state["spend"], "a fork starts at $0"
    finally:
        fork.close()


def test_fork_at_a_checkpoint_waiting_for_approval_asks_again(two_turns):
    s = two_turns
    waiting = next(c for c in s.checkpoints() if c["next"] == ["human_approval"])
    fork = s.fork(waiting["checkpoint_id"])
    try:
        r = fork.continue_()
        assert r.status == "awaiting_approval" and [c.call_id for c in r.pending] == ["w1"]
        assert fork.approve().status == "done"
        assert (fork.workspace.root / "b.txt").read_text() == "new\n"
        assert s.status == "awaiting_approval", "the source still waits"
    finally:
        fork.close()


def test_fork_refuses_a_point_with_calls_in_flight(two_turns):
    s = two_turns
    running = next(c for c in s.checkpoints() if c["next"] == ["tool_execution"])
    with pytest.raises(SessionError, match="middle of running calls"):
        s.fork(running["checkpoint_id"])
    with pytest.raises(SessionError):
        s.fork("no-such-checkpoint")
    with pytest.raises(SessionError, match="no end of turn"):
        s.fork(turn=9)
