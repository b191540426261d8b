"""SIGKILL of the parent while a sub-agent works, then resume: no child call runs twice.

Uses the kill-test harness: a real cairn process is killed while the child's first
side effect runs; the next process re-attaches to the same child session.
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from cairn.checkpoints import open_store
from tests.graph.test_recovery_kill import Harness, _head, assert_one_tool_message_per_call, call

pytestmark = pytest.mark.slow

CHILD_TURNS = [
    {"tool_calls": [call("effect", "childslow", 60, cid="c1")]},
    {"tool_calls": [call("effect", "after", cid="c2")]},
    {"content": "child done"},
]


def _harness(tmp_path, db: str, mode: str, parent_turns_after: list[dict]) -> Harness:
    child = tmp_path / "child.json"
    child.write_text(json.dumps({"turns": CHILD_TURNS}))
    spawn = {
        "name": "agent",
        "args": {
            "description": "kid",
            "prompt": "do it",
            "mode": mode,
            "read_only": False,
            "model": f"script:{child}",
        },
        "id": "call_agent",
    }
    return Harness(tmp_path, [{"tool_calls": [spawn]}, *parent_turns_after], db)


def _child_transcript(h: Harness) -> tuple[str, list]:
    store = open_store(h.db)
    try:
        child_id = f"{h.session_id}-sub-call_agent"
        return store.sessions.get(child_id).status, store.transcript.read(child_id, _head(store, child_id))
    finally:
        store.close()


def test_kill_parent_while_sync_child_runs_a_tool(tmp_path, db_location):
    h = _harness(tmp_path, db_location, "sync", [{"content": "finished"}])
    assert h.run("--send", "go")["status"] == "awaiting_approval"
    h.start_and_kill("--approve", marker="started-childslow")
    assert h.runs() == ["childslow"]
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert h.runs() == ["childslow", "after"], "the child's interrupted call must not run again"
    status, child_messages = _child_transcript(h)
    assert status == "done"
    assert_one_tool_message_per_call(child_messages)
    assert_one_tool_message_per_call(h.transcript())
    report = next(m for m in h.transcript() if getattr(m, "tool_call_id", None) == "call_agent")
    assert "child done" in report.content


def test_kill_parent_while_background_child_is_mid_way(tmp_path, db_location):
    h = _harness(tmp_path, db_location, "background", [{"content": "waiting"}, {"content": "got the report"}])
    assert h.run("--send", "go")["status"] == "awaiting_approval"
    h.start_and_kill("--approve", marker="started-childslow")
    assert h.runs() == ["childslow"]
    result = h.run("--continue")
    assert result["status"] == "done", result
    assert result["result"] == "got the report"
    assert h.runs() == ["childslow", "after"]
    status, child_messages = _child_transcript(h)
    assert status == "done"
    assert_one_tool_message_per_call(child_messages)
    messages = h.transcript()
    assert_one_tool_message_per_call(messages)
    notes = [m for m in messages if isinstance(m, HumanMessage) and "background sub-agent" in str(m.content)]
    assert len(notes) == 1 and "child done" in str(notes[0].content)
