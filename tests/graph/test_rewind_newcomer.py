"""After a rewind the session is consistent: cairn's own restore never makes a later edit look
stale, and an "always" rule granted in a rewound turn stops applying (redo brings it back)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from tests.graph.rewind_support import bash, session

pytestmark = pytest.mark.usefixtures("db_location")  # on SQLite and PostgreSQL


def edit(cid: str, old: str, new: str) -> dict:
    return {
        "name": "edit_file",
        "args": {"file_path": "a.txt", "old_string": old, "new_string": new},
        "id": cid,
    }


READ = {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "read1"}


@pytest.fixture
def ws(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\nbeta\n")
    return root


def test_edit_after_a_full_rewind_is_not_refused_as_stale(ws, db_location):
    turns = [
        {"tool_calls": [READ]},
        {"content": "read"},
        {"tool_calls": [edit("edit1", "beta", "BETA")]},
        {"content": "edited"},
        {"tool_calls": [edit("edit2", "alpha", "ALPHA")]},
        {"content": "edited again"},
    ]
    s = session(ws, db_location, turns)
    assert s.send("read a.txt").status == "done"
    assert s.send("capitalise beta").tool_calls[0].status == "success"
    s.rewind(turn=2)  # files and conversation back to before "capitalise beta"
    assert (ws / "a.txt").read_text() == "alpha\nbeta\n"
    sid = s.id
    s.close()
    # a new process: the read records come from the store.  The scripted model answers by the
    # number of its messages in the conversation: two are left, so turn 2 is now edit2.
    again = ScriptedChatModel.from_turns(turns[:2] + turns[4:])
    s = Session.resume(sid, db=db_location, model=again, mode="bypass")
    try:
        r = s.send("capitalise alpha")
        call = r.tool_calls[0]
        assert call.status == "success", call.error_msg
        assert (ws / "a.txt").read_text() == "ALPHA\nbeta\n"
    finally:
        s.close()


def test_after_a_code_only_rewind_the_model_is_told_to_read_again_not_that_someone_changed_it(
    ws, db_location
):
    turns = [
        {"tool_calls": [READ, edit("edit1", "beta", "BETA")]},
        {"content": "edited"},
        {"tool_calls": [edit("edit2", "BETA", "B")]},
        {"content": "?"},
    ]
    s = session(ws, db_location, turns)
    try:
        assert [c.status for c in s.send("edit").tool_calls] == ["success", "success"]
        s.rewind("edit1", code=True, conversation=False)
        assert (ws / "a.txt").read_text() == "alpha\nbeta\n"
        call = s.send("again").tool_calls[0]
        assert call.status == "error"
        assert "modified on disk" not in call.error_msg and "has not been read" in call.error_msg
    finally:
        s.close()


def test_always_rule_from_a_rewound_turn_stops_applying_and_redo_restores_it(ws, db_location):
    turns = [
        {"tool_calls": [bash("touch one.txt", "t1")]},
        {"content": "made one"},
        {"tool_calls": [bash("touch two.txt", "t2")]},
        {"content": "made two"},
    ]
    s = session(ws, db_location, turns, mode="default")
    try:
        first = s.send("make one")
        assert first.status == "awaiting_approval", first
        granted = s.approve("t1", always=True)
        assert granted.status == "done"
        rules = list(s.state["session_rules"])
        assert rules, "approving always added a rule"
        second = s.send("make two")  # the rule lets the same kind of command through
        assert second.status == "done" and (ws / "two.txt").exists()

        s.rewind(turn=1)  # back to before "make one": the person's grant is gone with it
        assert s.state["session_rules"] == []
        s.redo()  # undoing the rewind brings the grant back with the turn
        assert s.state["session_rules"] == rules
        s.rewind(turn=1)
        assert s.state["session_rules"] == []
        third = s.send("make one again")  # the model's turn 1 again: `touch one.txt`
        assert third.status == "awaiting_approval", "the rewound grant must no longer apply"
        assert [c.arguments["command"] for c in third.pending] == ["touch one.txt"]
        s.reject("all", "no")
    finally:
        s.close()


def test_a_doomed_edit_is_refused_at_once_not_put_to_a_person(ws, db_location):
    turns = [
        {"tool_calls": [edit("e1", "beta", "BETA")]},  # a.txt was never read: the edit cannot succeed
        {"content": "I will read it first."},
        {"tool_calls": [READ, edit("e2", "beta", "BETA")]},
        {"content": "done"},
    ]
    s = session(ws, db_location, turns, mode="default")
    try:
        r = s.send("capitalise beta")
        assert r.status == "done" and s.pending() == [], r  # nobody was asked about it
        [doomed] = r.tool_calls
        assert doomed.status == "error" and "has not been read" in doomed.error_msg
        r = s.send("read it, then edit")  # a possible edit is still asked about
        assert r.status == "awaiting_approval" and [c.call_id for c in r.pending] == ["e2"]
        assert s.approve("e2").status == "done"  # the read ran first: the edit works
        assert (ws / "a.txt").read_text() == "alpha\nBETA\n"
    finally:
        s.close()
