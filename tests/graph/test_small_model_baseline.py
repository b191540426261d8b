"""The benchmark's ReAct baseline (issue 31, item 7) works end to end: LangGraph's
``create_react_agent`` with cairn's lean tools, in its own process, against the local test
server, on one of the new tasks; the measurement itself needs the real model and is not run here."""

from __future__ import annotations

from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)
from tests.support.react_baseline import run_react_task
from tests.support.small_model_tasks import CONFIG_ANSWER, NEW_TASKS, TASK_SETS, TASKS


def test_the_react_baseline_runs_a_task_with_the_same_tools(make_openai_server):  # noqa: F811
    read = {"tool_calls": [{"name": "read_file", "args": {"file_path": "config/db.ini"}, "id": "r1"}]}
    server = make_openai_server([read, {"content": "The primary database uses port 5433."}])
    row = run_react_task(CONFIG_ANSWER, server.base_url, model="any", timeout=120)
    assert row["status"] == "done" and row["finished"] and row["tool_calls"] == 1
    first, second = server.requests
    assert sorted(t["function"]["name"] for t in first["tools"]) == sorted(
        ["bash", "edit_file", "glob", "grep", "read_file", "write_file"]
    )
    tool_result = next(m for m in second["messages"] if m["role"] == "tool")["content"]
    assert "port = 5433" in tool_result  # cairn's read_file ran in the task's workspace


def test_the_new_tasks_are_five_more_of_the_same_kinds():
    assert len(NEW_TASKS) == 5 and TASK_SETS == {"project": TASKS, "new": NEW_TASKS}
    assert not {t.name for t in TASKS} & {t.name for t in NEW_TASKS}
