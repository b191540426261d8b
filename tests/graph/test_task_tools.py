"""task_create / task_list / task_update and todo_write share one list in checkpointed state."""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from cairn import Session


def call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id}


def test_task_tools_share_one_persisted_list(harness):
    s = harness.session(
        [
            {
                "tool_calls": [
                    call("TaskCreate", {"title": "read the code", "description": "lib/ first"}, "c1"),
                    call("task_create", {"title": "fix the bug"}, "c2"),
                    call("task_update", {"id": "t1", "status": "in_progress"}, "c3"),
                ]
            },
            {"tool_calls": [call("task_update", {"id": "t9", "status": "done"}, "c4")]},
            {
                "tool_calls": [
                    call("task_update", {"id": "t2", "status": "failed"}, "c5"),
                    call("task_list", {}, "c6"),
                ]
            },
            {"content": "done"},
        ]
    )
    r = s.send("plan it")
    assert r.status == "done", r
    tasks = s.tasks()
    assert [(t["id"], t["content"], t["status"]) for t in tasks] == [
        ("t1", "read the code", "in_progress"),
        ("t2", "fix the bug", "failed"),
    ]
    assert tasks[0]["description"] == "lib/ first"
    messages = {m.tool_call_id: m for m in s.history() if isinstance(m, ToolMessage)}
    assert "no task 't9'" in messages["c4"].content and messages["c4"].status == "error"
    assert "[~] t1 read the code" in messages["c6"].content and "[!] t2 fix the bug" in messages["c6"].content
    s.close()
    again = Session.resume(s.id, db=harness.db, tools=harness.tools())
    assert [t["status"] for t in again.tasks()] == ["in_progress", "failed"]
    again.close()


def test_todo_write_is_the_whole_list_form(harness):
    todos = [{"content": "a", "status": "completed"}, {"content": "b", "status": "pending", "id": "t1"}]
    s = harness.session(
        [
            {"tool_calls": [call("todo_write", {"todos": todos}, "w1")]},
            {
                "tool_calls": [
                    call("task_create", {"title": "c"}, "w2"),
                    call("task_update", {"id": "t2", "status": "cancelled"}, "w3"),
                ]
            },
            {"content": "ok"},
        ]
    )
    assert s.send("go").status == "done"
    assert [(t["id"], t["content"], t["status"]) for t in s.tasks()] == [
        ("t2", "a", "cancelled"),
        ("t1", "b", "pending"),
        ("t3", "c", "pending"),
    ]
    s.close()
