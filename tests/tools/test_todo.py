"""todo_write: replaces the list, renders it, validates it, and hands the tasks to the graph."""

from __future__ import annotations

import json

import pytest

from cairn.tools.base import RiskLevel
from cairn.tools.registry import ToolRegistry
from cairn.tools.todo import TodoWriteTool
from cairn.tools.workspace import Workspace


@pytest.fixture
def tool(workspace):
    return TodoWriteTool(Workspace(workspace))


def test_metadata_and_aliases(tool):
    assert tool.name == "todo_write"
    assert tool.risk_level is RiskLevel.LOW
    assert tool.read_only is True and tool.concurrency_safe is False
    registry = ToolRegistry([tool])
    for alias in ("TodoWrite", "write_todos", "update_tasks", "todowrite"):
        assert registry.resolve_name(alias) == "todo_write"


def test_renders_list_and_returns_state(tool):
    todos = [
        {"content": "Read the failing test", "status": "completed", "id": "t1"},
        {"content": "Fix the parser", "status": "in_progress", "id": "t2"},
        {"content": "Run the suite", "status": "pending"},
    ]
    result = tool.execute({"todos": todos})
    assert result.ok, result.error
    assert result.output == (
        "Tasks (1/3 completed):\n[x] t1 Read the failing test\n[~] t2 Fix the parser\n[ ] t3 Run the suite"
    )
    tasks = result.metadata["state"]["tasks"]
    assert tasks == [
        {"content": "Read the failing test", "status": "done", "id": "t1"},
        {"content": "Fix the parser", "status": "in_progress", "id": "t2"},
        {"content": "Run the suite", "status": "pending", "id": "t3"},
    ]
    json.dumps(result.metadata)  # checkpointable: plain JSON data
    assert "now: Fix the parser" in result.display


def test_each_call_replaces_the_list(tool):
    tool.execute({"todos": [{"content": "a", "status": "pending"}, {"content": "b", "status": "pending"}]})
    result = tool.execute({"todos": [{"content": "c", "status": "in_progress"}]})
    assert result.metadata["state"]["tasks"] == [{"content": "c", "status": "in_progress", "id": "t1"}]
    assert "a" not in result.output.splitlines()[1:]


def test_empty_list_clears(tool):
    result = tool.execute({"todos": []})
    assert result.ok and result.output == "Task list is empty."
    assert result.metadata == {"state": {"tasks": []}}


def test_at_most_one_in_progress(tool):
    result = tool.execute(
        {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}
    )
    assert not result.ok
    assert "at most one task may be in_progress; tasks 1, 2 are" in result.error
    assert "state" not in result.metadata


def test_bad_status_and_blank_content(tool):
    result = tool.execute({"todos": [{"content": "a", "status": "finished"}]})
    assert not result.ok and "todos.0.status" in result.error
    result = tool.execute({"todos": [{"content": "   ", "status": "pending"}]})
    assert not result.ok and "content must not be empty" in result.error


def test_duplicate_ids_rejected(tool):
    todos = [
        {"content": "a", "status": "pending", "id": "x"},
        {"content": "b", "status": "pending", "id": "x"},
    ]
    result = tool.execute({"todos": todos})
    assert not result.ok and "repeated: x" in result.error


def test_registry_accepts_json_string_list(tool):
    # models sometimes send the list as a JSON string; the registry coerces it
    registry = ToolRegistry([tool])
    result = registry.execute("TodoWrite", {"todos": json.dumps([{"content": "a", "status": "pending"}])})
    assert result.ok and result.output.endswith("[ ] t1 a")


def test_whitespace_in_content_is_normalized(tool):
    result = tool.execute({"todos": [{"content": "  fix\n the   bug ", "status": "pending"}]})
    assert result.metadata["state"]["tasks"][0]["content"] == "fix the bug"


def test_extra_item_keys_from_other_agents_are_ignored(tool):
    todos = [{"content": "a", "status": "in_progress", "activeForm": "Doing a", "priority": "high"}]
    result = tool.execute({"todos": todos})
    assert result.ok and result.metadata["state"]["tasks"] == [
        {"content": "a", "status": "in_progress", "id": "t1"}
    ]
    assert not tool.execute({"todos": [], "extra": 1}).ok  # top-level arguments stay strict
