"""The graph ``langgraph.json`` serves: one approval round trip with a server-owned checkpointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

ROOT = Path(__file__).resolve().parents[2]

TURNS = [
    {
        "content": "",
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "notes.txt", "content": "hi\n"}, "id": "w1"}
        ],
    },
    {"content": "wrote it"},
]


def test_langgraph_json_points_at_the_server_graph():
    config = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attr = config["graphs"]["cairn"].partition(":")
    assert (ROOT / path).exists() and attr == "graph"
    from cairn.graph.apps import server

    assert set(server.graph.get_graph().nodes) >= {"intake", "reasoning", "human_approval", "tool_execution"}


@pytest.fixture
def served(monkeypatch, tmp_path, workspace, db_location):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": TURNS}))
    monkeypatch.setenv("CAIRN_WORKSPACE", workspace)
    monkeypatch.setenv("CAIRN_MODEL", f"script:{script}")
    monkeypatch.setenv("CAIRN_DB", db_location)
    from cairn.graph.apps import server

    yield server
    for session in server._sessions.values():
        session.close()
    server._sessions.clear()


def test_one_approval_round_trip(served, workspace):
    graph = served.make_graph().copy(update={"checkpointer": InMemorySaver()})
    config = {"configurable": {"thread_id": "thread-1"}}
    out = graph.invoke({"prompt": "write notes"}, config)
    [pause] = out["__interrupt__"]
    assert [c["call_id"] for c in pause.value["calls"]] == ["w1"]
    assert not (Path(workspace) / "notes.txt").exists()
    out = graph.invoke(Command(resume={"decisions": {"w1": {"action": "approve"}}}), config)
    assert out["reply"] == "wrote it"
    assert (Path(workspace) / "notes.txt").read_text() == "hi\n"
    [entry] = served._sessions["thread-1"].store.journal.entries("thread-1")
    assert entry.status == "success"
