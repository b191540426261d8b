"""Loops a small model falls into: identical calls are answered from the earlier one instead of
being run (or asked about) again, the run pauses at the repeat limit and can be continued, and a
tool failing the same way twice gets targeted help.  No request ever carries a dangling call."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel

pytestmark = pytest.mark.usefixtures("db_location")  # each test on SQLite and PostgreSQL (CAIRN_DB)


def call(name: str, args: dict, cid: str) -> dict:
    return {"tool_calls": [{"name": name, "args": args, "id": cid}]}


def session(tmp_path, turns, **kwargs) -> Session:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    return Session(ws, model=ScriptedChatModel.from_turns(turns), **kwargs)


def assert_every_call_answered(s: Session) -> None:
    history = s.history()
    asked = [tc["id"] for m in history if isinstance(m, AIMessage) for tc in m.tool_calls]
    answered = [m.tool_call_id for m in history if isinstance(m, ToolMessage)]
    assert sorted(asked) == sorted(answered)


def test_identical_read_only_calls_are_answered_from_the_first_and_the_run_pauses(tmp_path):
    read = {"file_path": "a.py"}
    turns = [call("read_file", read, f"r{i}") for i in range(1, 5)] + [{"content": "f and g return 1"}]
    s = session(tmp_path, turns)
    r = s.send("what do the functions return?")
    assert r.status == "loop"
    assert "repeated the same read_file call 4 times" in r.error
    calls = s.tool_calls()
    assert [c.status for c in calls] == ["success"] * 4
    assert calls[0].decision is None and "return 1" in calls[0].result
    assert [c.decision for c in calls[1:]] == ["repeat of r1"] * 3
    assert calls[1].result.startswith("Repeat: you already made this exact call (r1)")
    assert "return 1" in calls[1].result  # the earlier result, again
    assert_every_call_answered(s)
    resumed = s.continue_()  # the person lets it go on: the repeat memory starts afresh
    assert resumed.status == "done" and resumed.text == "f and g return 1"
    s.close()


def test_a_change_in_between_makes_the_same_read_a_new_call(tmp_path):
    read = {"file_path": "a.py"}
    edit = {
        "file_path": "a.py",
        "old_string": "def f():\n    return 1",
        "new_string": "def f():\n    return 2",
    }
    turns = [
        call("read_file", read, "r1"),
        call("edit_file", edit, "e1"),
        call("read_file", read, "r2"),
        {"content": "ok"},
    ]
    s = session(tmp_path, turns, mode="accept-edits")
    r = s.send("change f")
    assert r.status == "done"
    reads = [c for c in s.tool_calls() if c.tool_name == "read_file"]
    assert [c.decision for c in reads] == [None, None] and "return 2" in reads[1].result
    s.close()


def test_a_repeated_successful_write_is_already_done_and_not_asked_again(tmp_path):
    write = {"file_path": "new.txt", "content": "hello\n"}
    turns = [call("write_file", write, "w1"), call("write_file", write, "w2"), {"content": "written"}]
    s = session(tmp_path, turns)
    r = s.send("write new.txt")
    assert r.status == "awaiting_approval" and [c.call_id for c in r.pending] == ["w1"]
    r = s.approve()
    assert r.status == "done" and r.text == "written"  # w2 was not put to the person
    w1, w2 = s.tool_calls()
    assert w1.status == "success" and w2.status == "success" and w2.decision == "repeat of w1"
    assert w2.result.startswith("Already done: this exact call (w1) succeeded")
    assert (tmp_path / "ws" / "new.txt").read_text() == "hello\n"
    assert_every_call_answered(s)
    s.close()


def test_a_rejected_call_is_not_asked_about_again(tmp_path):
    cmd = {"command": "rm a.py"}
    turns = [call("bash", cmd, "b1"), call("bash", cmd, "b2"), {"content": "I will not delete it"}]
    s = session(tmp_path, turns)
    r = s.send("clean up")
    assert [c.call_id for c in r.pending] == ["b1"]
    r = s.reject("b1", "keep a.py")
    assert r.status == "done" and not r.pending
    b1, b2 = s.tool_calls()
    assert b1.status == "cancelled" and b2.status == "cancelled" and b2.decision == "repeat of b1"
    assert (
        b2.error_msg.startswith("Not asked again: this exact call (b1) was refused")
        and "keep a.py" in b2.error_msg
    )
    assert (tmp_path / "ws" / "a.py").exists()
    s.close()


def test_a_repeated_failing_edit_is_not_run_again_and_different_failures_get_help(tmp_path):
    ambiguous = {"file_path": "a.py", "old_string": "    return 1", "new_string": "    return 3"}
    also_ambiguous = {"file_path": "a.py", "old_string": "return 1", "new_string": "return 3"}
    turns = [
        call("read_file", {"file_path": "a.py"}, "r1"),
        call("edit_file", ambiguous, "e1"),
        call("edit_file", ambiguous, "e2"),
        call("edit_file", also_ambiguous, "e3"),
        {"content": "stuck"},
    ]
    s = session(tmp_path, turns, mode="accept-edits")
    r = s.send("make them return 3")
    assert r.status == "done"
    _, e1, e2, e3 = s.tool_calls()
    assert e1.status == "error" and "occurs 2 times" in e1.error_msg and "match at line" not in e1.error_msg
    assert e2.decision == "repeat of e1" and e2.error_msg.startswith("This exact call (e1) already failed")
    # a different call failing the same way gets every match with its context
    assert e3.status == "error" and "This failed the same way as your last edit_file call" in e3.error_msg
    assert "match at line 2:" in e3.error_msg and "match at line 6:" in e3.error_msg
    assert "     5\tdef g():" in e3.error_msg
    s.close()


def test_the_repeat_limit_is_configurable(tmp_path):
    read = {"file_path": "a.py"}
    turns = [call("read_file", read, f"r{i}") for i in range(1, 4)] + [{"content": "done"}]
    s = session(tmp_path, turns, repeat_limit=1)
    r = s.send("read it")
    assert r.status == "loop" and len(s.tool_calls()) == 2
    s.close()
