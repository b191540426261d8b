"""The agent tool: sync, background and worktree children, budgets, links in the session index."""

from __future__ import annotations

import subprocess

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn import Session
from tests.graph.agent_model import AgentsModel, call


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    path = tmp_path / "ws"
    path.mkdir()
    (path / "code.py").write_text("def target():\n    pass\n")
    return path


def tool_messages(session: Session) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in session.history() if isinstance(m, ToolMessage)}


def test_sync_child_is_linked_and_budget_ends_it_with_a_report(ws, db_location):
    model = AgentsModel(
        scripts={
            "parent": [
                call("Task", {"description": "look", "prompt": "find target", "max_steps": 2}, "p1"),
                AIMessage("done"),
            ],
            # Keeps searching: the step budget (2 model calls) ends it.
            "look": [call("grep", {"pattern": f"target{i}"}, f"g{i}") for i in range(5)],
        }
    )
    db = db_location
    s = Session(ws, model=model, db=db, mode="bypass")
    events: list[tuple[str, dict]] = []
    assert s.send("go", on_event=lambda kind, payload: events.append((kind, payload))).status == "done"
    child_id = f"{s.id}-sub-p1"
    mine = [
        (k, p.get("event"), (p.get("call") or {}).get("call_id"))
        for k, p in events
        if k.startswith("subagent")
    ]
    assert mine == [
        ("subagent_start", None, None),
        ("subagent_event", "tool_start", "g0"),
        ("subagent_event", "tool_end", "g0"),
        ("subagent_event", "tool_start", "g1"),
        ("subagent_event", "tool_end", "g1"),
        ("subagent_end", None, None),
    ]
    assert all(p["agent_id"] == child_id for k, p in events if k.startswith("subagent"))
    report = tool_messages(s)["p1"]
    assert report.status == "success"
    assert "the sub-agent stopped" in report.content and "budget" in report.content
    [child] = s.store.sessions.children(s.id)
    assert (child.session_id, child.parent_id, child.call_id) == (f"{s.id}-sub-p1", s.id, "p1")
    assert child.status == "max_steps" and child.mode == "plan"
    assert [r["session_id"] for r in Session.list(db=db)] == [s.id]
    listed = s.subagents.list()
    assert listed[0]["status"] == "max_steps" and listed[0]["model_calls"] == 2
    s.close()


def test_token_budget_pauses_the_child(ws, db_location):
    hungry = AIMessage("", tool_calls=[{"name": "grep", "args": {"pattern": "x"}, "id": "g"}])
    hungry.usage_metadata = {"input_tokens": 600, "output_tokens": 10, "total_tokens": 610}
    model = AgentsModel(
        scripts={
            "parent": [
                call("agent", {"description": "eat", "prompt": "p", "max_tokens": 1000}, "p1"),
                AIMessage("ok"),
            ],
            "eat": [hungry],
        }
    )
    s = Session(ws, model=model, db=db_location, mode="bypass")
    assert s.send("go").status == "done"
    info = s.subagents.status(f"{s.id}-sub-p1")
    assert info["status"] == "max_steps" and info["model_calls"] == 2
    assert "token budget of 1000" in info["text"]
    s.close()


def test_background_report_is_delivered_exactly_once(ws, db_location):
    model = AgentsModel(
        scripts={
            "parent": [
                call(
                    "spawn_agent", {"description": "bg", "prompt": "count files", "mode": "background"}, "p1"
                ),
                AIMessage("started it"),
                AIMessage("the report says 1 file"),
            ],
            "bg": [call("ls", {}, "l1"), AIMessage("there is 1 file")],
        }
    )
    s = Session(ws, model=model, db=db_location, mode="bypass")
    r = s.send("go")
    assert r.status == "done" and r.text == "the report says 1 file"
    started = tool_messages(s)["p1"]
    assert f"{s.id}-sub-p1" in started.content and "background" in started.content
    notes = [
        m for m in s.history() if isinstance(m, HumanMessage) and "background sub-agent" in str(m.content)
    ]
    assert len(notes) == 1 and "there is 1 file" in str(notes[0].content)
    assert s.state["delivered_agents"] == [f"{s.id}-sub-p1"]
    # A later turn does not deliver it again.
    model.scripts["parent"].append(AIMessage("bye"))
    s.send("anything else?")
    again = [
        m for m in s.history() if isinstance(m, HumanMessage) and "background sub-agent" in str(m.content)
    ]
    assert len(again) == 1
    s.close()


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_worktree_child_writes_on_its_branch_only(ws, tmp_path, db_location):
    _git(ws, "init", "-q")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (ws / "notes.txt").write_text("old\n")  # the child reads then rewrites it: the worktree is readable
    _git(ws, "add", "notes.txt")
    _git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "notes")
    model = AgentsModel(
        scripts={
            "parent": [
                call(
                    "agent",
                    {
                        "description": "wt",
                        "prompt": "add notes",
                        "mode": "worktree",
                        "branch_name": "feature/notes",
                    },
                    "p1",
                ),
                AIMessage("look"),
            ],
            "wt": [
                call("read_file", {"file_path": "notes.txt"}, "w0"),
                call("write_file", {"file_path": "notes.txt", "content": "hello\n"}, "w1"),
                call("write_file", {"file_path": "new.txt", "content": "new\n"}, "w2"),
                AIMessage("wrote it"),
            ],
        }
    )
    s = Session(ws, model=model, db=db_location, mode="bypass")
    assert s.send("go").status == "done"
    report = tool_messages(s)["p1"].content
    assert "feature/notes" in report and "notes.txt" in report, report
    assert (ws / "notes.txt").read_text() == "old\n", "the parent's checkout is untouched"
    assert not (ws / "new.txt").exists()
    assert _git(ws, "show", "feature/notes:notes.txt") == "hello\n"
    assert _git(ws, "show", "feature/notes:new.txt") == "new\n"
    child = {
        c.call_id: c.status
        for c in Session.resume(f"{s.id}-sub-p1", db=db_location, model=model).tool_calls()
    }
    assert child == {"w0": "success", "w1": "success", "w2": "success"}
    info = s.subagents.status(f"{s.id}-sub-p1")
    assert info["worktree"] == str(tmp_path / "home-worktrees" / f"{s.id}-sub-p1")
    out = s.subagents.merge("p1")
    assert "error" not in out, out
    assert (ws / "notes.txt").read_text() == "hello\n" and (ws / "new.txt").read_text() == "new\n"
    s.close()


def test_worktree_outside_git_is_a_clear_error(ws, db_location):
    model = AgentsModel(
        scripts={
            "parent": [
                call("agent", {"description": "wt", "prompt": "p", "mode": "worktree"}, "p1"),
                AIMessage("ok"),
            ],
            "wt": [AIMessage("never")],
        }
    )
    s = Session(ws, model=model, db=db_location, mode="bypass")
    s.send("go")
    msg = tool_messages(s)["p1"]
    assert msg.status == "error" and "needs a git repository" in msg.content
    assert s.store.sessions.children(s.id) == []
    s.close()
