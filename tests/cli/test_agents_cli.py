"""``cairn sessions`` lists sub-agents under their parent; ``cairn show CHILD`` works; stream-json
carries the subagent_* events."""

from __future__ import annotations

import json
from pathlib import Path

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


def _agent_server(make_openai_server, mode: str):
    """Parent and child on the real ChatOpenAI client: the server answers each model from its
    own script (the child's model is named in the agent call and served by the parent's endpoint)."""
    spawn = call(
        "agent", "p1", description="kid", prompt="make the file", mode=mode, read_only=False, model="kid"
    )
    parent = [{"tool_calls": [spawn]}, {"content": "started"}, {"content": "parent done"}]
    kid = [{"tool_calls": [call("bash", "c1", command="touch made.txt")]}, {"content": "made it"}]
    return make_openai_server(parent, model_turns={"parent": parent, "kid": kid})


@pytest.mark.parametrize("mode", ["sync", "background"])
def test_a_childs_gated_call_is_approved_from_the_parents_headless_resume(
    run_cairn, workspace, make_openai_server, mode
):
    server = _agent_server(make_openai_server, mode)
    flags = ["--model", "parent", "--base-url", server.base_url, "--output-format", "json"]
    key = {"OPENAI_API_KEY": "dummy"}
    p = run_cairn("-p", "go", *flags, "--approval", "default", env=key)
    assert p.returncode == 3, p.stderr
    sid = json.loads(p.stdout)["session_id"]
    p = run_cairn("resume", sid, "--approve", "p1", *flags, env=key)  # the parent's own agent call
    assert p.returncode == 3, p.stderr
    out = json.loads(p.stdout)
    [ask] = out["pending"]
    assert (ask["call_id"], ask["tool_name"], ask["agent"]) == ("p1/c1", "bash", "kid")
    assert ask["agent_id"] == f"{sid}-sub-p1"
    assert "p1/c1  [sub-agent: kid] bash" in p.stderr
    assert "--approve all" in p.stderr
    assert not (Path(workspace) / "made.txt").exists()

    p = run_cairn("resume", sid, "--approve", "p1/c1", *flags, env=key)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "done", out
    assert (Path(workspace) / "made.txt").exists()
    kid_requests = [r for r in server.requests if r["model"] == "kid"]
    assert len(kid_requests) == 2  # the child's call ran once, after approval; then its answer
    tool_results = [m for m in kid_requests[-1]["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 1
