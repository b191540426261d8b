"""``cairn sessions`` lists sub-agents under their parent; ``cairn show CHILD`` works; stream-json
carries the subagent_* events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL


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


def _git(cwd, *args: str) -> str:
    import subprocess

    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    return subprocess.run(["git", *ident, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_agents_list_remove_and_merge_a_worktree_child(run_cairn, script, workspace):
    _git(workspace, "init", "-q")
    Path(workspace, "readme.txt").write_text("hi\n")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-qm", "init")
    child = script(
        [{"tool_calls": [call("write_file", "w1", file_path="new.txt", content="new\n")]}, {"content": "ok"}]
    )
    spawn = call(
        "agent", "p1", description="wt", prompt="add", mode="worktree", branch_name="feat/new", model=child
    )
    parent = script([{"tool_calls": [spawn]}, {"content": "done"}])
    p = run_cairn("-p", "go", "--model", parent, "--approval", "bypass", "--output-format", "json")
    assert p.returncode == 0, p.stderr
    sid = json.loads(p.stdout)["session_id"]
    child_id = f"{sid}-sub-p1"

    listed = json.loads(run_cairn("agents", "list", sid, "--json").stdout)
    assert [(a["agent_id"], a["status"], a["branch"]) for a in listed] == [(child_id, "done", "feat/new")]
    worktree = Path(listed[0]["worktree"])
    assert (worktree / "new.txt").read_text() == "new\n"
    assert "feat/new" in run_cairn("agents", "list").stdout

    p = run_cairn("agents", "remove", child_id)
    assert p.returncode == 0, p.stderr
    assert not worktree.exists()
    assert _git(workspace, "show", "feat/new:new.txt") == "new\n"  # the branch keeps the work
    assert not Path(workspace, "new.txt").exists()

    p = run_cairn("agents", "merge", child_id)
    assert p.returncode == 0, p.stderr
    assert Path(workspace, "new.txt").read_text() == "new\n"
    p = run_cairn("agents", "merge", "nope")
    assert p.returncode == 2 and "no sub-agent 'nope'" in p.stderr
