"""Long sessions end to end: the real ChatOpenAI client against the tests' server, which answers
``context_length_exceeded`` above its limit like OpenAI does."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from cairn import Session
from cairn.graph.core.compaction.view import is_marker, marker_info
from cairn.graph.models import create_model
from cairn.graph.models.script import ScriptTurn
from tests.compaction.conftest import read_turn
from tests.support.fixtures import openai_server
from tests.support.openai_wire import (
    count_request_tokens,
    find_dangling_tool_calls,
    find_orphan_tool_messages,
)

LIMIT = 6_000


def _model(server):
    return create_model("scripted", base_url=server.base_url, api_key="k", max_retries=0)


def _well_formed(server) -> None:
    for body in server.requests:
        assert find_dangling_tool_calls(body) == []
        assert find_orphan_tool_messages(body) == []


@pytest.mark.slow
def test_a_300_turn_session_far_beyond_the_window_completes(project):
    project.add_files(300)
    turns = [read_turn(i, 300) for i in range(300)] + [{"content": "read them all"}]
    with openai_server(turns, context_limit=LIMIT) as server:
        s = Session(project.ws, model=_model(server), db=project.db, max_steps=1000)
        assert s.context_window == LIMIT  # from the server's /models metadata
        r = s.send("read every file, one at a time")
        assert r.status == "done" and r.text == "read them all", r.error
        assert server.rejected == [], "no request may exceed the window"
        sizes = [count_request_tokens(b) for b in server.requests]
        assert max(sizes) <= LIMIT
        assert sum(sizes) > 20 * LIMIT  # the whole session is many windows long
        _well_formed(server)
        context = s.state["context"]
        assert context["compactions"] >= 2
        assert len(server.summary_requests) == context["compactions"]  # one summary per compaction
        history = s.history()
        assert sum(isinstance(m, ToolMessage) for m in history) == 300  # nothing was removed
        markers = [m for m in history if is_marker(m)]
        assert len(markers) == context["compactions"]
        sent = s.history(sent=True)
        assert sent[1].text.startswith("read every file, one at a time")  # before the session context
        assert "earlier assistant messages summarized" in sent[2].text
        assert len(sent) < len(history) / 4
        s.close()


def test_approval_todos_mode_and_file_reads_survive_compaction(project):
    (project.ws / "f00.txt").write_text("value = 1\n" + "filler line\n" * 300)
    todo = {
        "name": "todo_write",
        "args": {"todos": [{"content": "Change value to 2", "status": "in_progress"}]},
        "id": "t0",
    }
    edit = {
        "name": "edit_file",
        "args": {"file_path": "f00.txt", "old_string": "value = 1", "new_string": "value = 2"},
        "id": "e1",
    }
    turns = [
        {"tool_calls": [todo]},
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "f00.txt"}, "id": "r0"}]},
        *[read_turn(i) for i in range(1, 12)],
        {"content": "Changing it.", "tool_calls": [edit]},
        {"content": "done"},
    ]
    with openai_server(turns, context_limit=LIMIT) as server:
        # The todo tool is not in the lean profile, which auto picks for this small window.
        s = Session(
            project.ws,
            model=_model(server),
            db=project.db,
            mode="accept-edits",
            max_steps=100,
            tool_profile="full",
        )
        s.set_mode("default")
        r = s.send("set value to 2")
        assert r.status == "awaiting_approval", r.error
        [waiting] = s.pending()
        assert waiting.call_id == "e1" and "+value = 2" in (waiting.preview or "")
        auto = s.state["context"].get("compactions", 0)
        info = s.compact("the pending edit of f00.txt")
        assert info.get("summarized", 0) > 0, info
        assert s.state["context"]["compactions"] == auto + 1
        # the gated call is still asked, preview intact; todos and mode unchanged
        [again] = s.pending()
        assert again.model_dump() == waiting.model_dump()
        assert s.state["tasks"][0]["content"] == "Change value to 2"
        assert s.mode == "default"
        sent = s.history(sent=True)
        assert "Change value to 2" in sent[2].text and "f00.txt" in sent[2].text
        assert "Approval mode: default" in sent[0].text
        ai = [m for m in sent if isinstance(m, AIMessage)]
        assert ai[-1].tool_calls[0]["id"] == "e1"
        r = s.approve()
        assert r.status == "done", r.error
        # the read before compaction still counts: the edit was not refused as stale/unread
        assert (project.ws / "f00.txt").read_text().startswith("value = 2")
        summary_bodies = server.summary_requests
        assert any("pending edit of f00.txt" in m["content"] for b in summary_bodies for m in b["messages"])
        _well_formed(server)
        s.close()


def test_context_length_exceeded_compacts_harder_and_retries_once(project):
    turns = [read_turn(i) for i in range(10)] + [{"content": "ok"}]
    with openai_server(turns, context_limit=3_000) as server:
        # cairn believes the window is larger than the server's: the provider has to refuse
        s = Session(project.ws, model=_model(server), db=project.db, context_window=100_000)
        r = s.send("read")
        assert r.status == "done", r.error
        # refused once; cairn compacted harder, retried, and learned the window from the error
        assert len(server.rejected) == 1
        _well_formed(server)
        markers = [marker_info(m) for m in s.history() if is_marker(m)]
        assert markers[0]["kind"] == "hard"
        assert s.state["context"]["window"] == 3_000
        s.close()


def test_a_prompt_that_cannot_fit_stops_with_the_error_instead_of_looping(project):
    with openai_server([{"content": "never"}], context_limit=50) as server:
        s = Session(project.ws, model=_model(server), db=project.db, context_window=100_000)
        r = s.send("hello")
        assert r.status == "error" and "context window" in (r.error or "")
        assert len(server.rejected) == 2  # the first try and the one retry, no more
        s.close()


def test_summary_call_failure_falls_back_to_the_deterministic_summary(project):
    turns = [read_turn(i) for i in range(14)] + [{"content": "finished"}]
    failing = ScriptTurn(error=(500, "summary model down"))
    with openai_server(turns, context_limit=LIMIT, summary=failing) as server:
        s = Session(project.ws, model=_model(server), db=project.db)
        r = s.send("read a lot")
        assert r.status == "done", r.error
        before = len(server.summary_requests)  # automatic compactions of the run may have asked too
        info = s.compact()
        assert info["source"] == "fallback" and len(server.summary_requests) == before + 1
        markers = [m for m in s.history() if is_marker(m)]
        assert markers and marker_info(markers[-1])["source"] == "fallback"
        assert "## Files touched" in markers[-1].text and "f00.txt" in markers[-1].text
        s.close()


def test_big_output_goes_to_a_file_the_model_can_read(project):
    big = "".join(f"row {i} " + "y" * 50 + "\n" for i in range(3000))
    (project.ws / "big.txt").write_text(big)
    turns = [
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "big.txt"}, "id": "b1"}]},
        {"content": "seen"},
    ]
    with openai_server(turns) as server:
        s = Session(project.ws, model=_model(server), db=project.db)
        r = s.send("show big.txt")
        assert r.status == "done", r.error
        tool = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")["content"]
        assert len(tool) < 12_000 and "saved whole at" in tool
        path = tool.split("saved whole at ", 1)[1].split(" ", 1)[0]
        stored = Path(path).read_text()
        assert "row 0 " in stored.splitlines()[0] and "row 1000 " in stored  # the whole result
        from cairn import policy

        verdict = policy.evaluate(
            "read_file",
            {"file_path": path, "offset": 1500, "limit": 10},
            workspace=s.workspace,
            mode="default",
            rules=s.rules,
        )
        assert str(verdict.decision) == "allow", verdict
        s.close()


def test_a_rewind_to_before_a_compaction_sends_the_whole_history_again(project):
    turns = [read_turn(i) for i in range(4)] + [{"content": "done"}]
    with openai_server(turns) as server:
        s = Session(project.ws, model=_model(server), db=project.db)
        assert s.send("read four").status == "done"
        before = s.state["head"]
        info = s.compact()
        assert info["summarized"] > 0
        assert "earlier assistant messages summarized" in s.history(sent=True)[2].text
        # what a rewind of the conversation does: the head moves back; state still names the marker
        s.core.graph.update_state(s.core.config(), {"head": before})
        sent = s.history(sent=True)
        assert not any("earlier assistant messages summarized" in m.text for m in sent)
        assert len(sent) == len(s.history()) + 1  # the system prompt, then every message
        s.close()
