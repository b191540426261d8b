"""``cairn sessions`` lists sub-agents under their parent; ``cairn show CHILD`` works; stream-json
carries the subagent_* events."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import call

pytestmark = pytest.mark.slow


def test_children_in_sessions_show_and_stream_json(run_cairn, script, workspace):
    child = script([{"tool_calls": [call("ls", "c1")]}, {"content": "one file"}])
    parent = script(
        [
            {"tool_calls": [call("agent", "p1", description="count", prompt="count files", model=child)]},
            {"content": "it has one file"},
        ]
    )
    p = run_cairn("-p", "count", "--model", parent, "--output-format", "stream-json", "--approval", "bypass")
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    kinds = [e["type"] for e in events if e["type"].startswith("subagent")]
    assert kinds == ["subagent_start", "subagent_event", "subagent_event", "subagent_end"]
    session_id = events[-1]["session_id"]
    child_id = f"{session_id}-sub-p1"
    assert all(e["agent_id"] == child_id for e in events if e["type"].startswith("subagent"))

    rows = run_cairn("sessions").stdout.splitlines()
    at = next(i for i, r in enumerate(rows) if r.startswith(session_id[:12]))
    assert rows[at + 1].lstrip().startswith(f"└ {child_id}")
    listed = json.loads(run_cairn("sessions", "--json").stdout)
    assert [(r["session_id"], r["parent_id"]) for r in listed] == [(session_id, ""), (child_id, session_id)]

    shown = json.loads(run_cairn("show", child_id, "--json").stdout)
    assert shown["session_id"] == child_id
    assert [c["tool_name"] for c in shown["tool_calls"]] == ["ls"]
    assert shown["messages"][-1]["content"] == "one file"
    parent_doc = json.loads(run_cairn("show", session_id, "--json").stdout)
    assert [c["session_id"] for c in parent_doc["children"]] == [child_id]
