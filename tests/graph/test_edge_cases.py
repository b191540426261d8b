"""Edge cases found in review: reused call ids, stops mid-stream, unparseable session rules,
tools with odd metadata, edits that a deny rule forbids, decisions sent before the prompt."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, ToolMessage
from langchain_core.outputs import ChatGenerationChunk
from pydantic import Field

from cairn import Session
from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolResult
from cairn.tools.workspace import Workspace
from tests.graph.conftest import effect


def test_reused_or_missing_call_ids_never_adopt_an_earlier_result(harness):
    turns = [
        {"tool_calls": [{"name": "effect", "args": {"label": "first"}, "id": "c1"}]},
        {"tool_calls": [{"name": "effect", "args": {"label": "second"}, "id": "c1"}]},
        {
            "tool_calls": [
                {"name": "effect", "args": {"label": "third"}, "id": "c1"},
                {"name": "effect", "args": {"label": "fourth"}, "id": "c1"},
            ]
        },
        {"content": "done"},
    ]
    s = harness.session(turns)
    assert s.send("go").status == "done"
    assert harness.runs() == ["first", "second", "third", "fourth"]
    answers = [m for m in s.history() if isinstance(m, ToolMessage)]
    assert [m.content for m in answers] == ["ran first", "ran second", "ran third", "ran fourth"]
    assert len({m.tool_call_id for m in answers}) == 4


class StreamingToolCallModel(BaseChatModel):
    """Streams a tool call's arguments in pieces; the person stops it half-way."""

    session: Any = None

    @property
    def _llm_type(self) -> str:
        return "streaming-test"

    def bind_tools(self, tools: Any, **kw: Any) -> StreamingToolCallModel:
        return self

    def _generate(self, *a: Any, **kw: Any) -> Any:
        raise NotImplementedError

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="Deleting ",
                tool_call_chunks=[{"name": "gated_effect", "args": "", "id": "x1", "index": 0}],
            )
        )
        args = '{"label": "everything-but-the-backups"}'
        for i in range(0, len(args), 4):
            if i == 12:
                self.session.stop()
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[{"name": None, "args": args[i : i + 4], "id": None, "index": 0}],
                )
            )


def test_stopping_a_streamed_reply_keeps_its_text_but_never_its_half_sent_calls(harness):
    model = StreamingToolCallModel()
    s = Session(harness.ws, model=model, db=harness.db, tools=harness.tools())
    model.session = s
    r = s.send("go", stream=True)
    assert r.status == "interrupted" and r.pending == []
    last = s.history()[-1]
    assert last.content == "Deleting " and last.tool_calls == []
    assert harness.runs() == []


def test_stopping_between_steps_spends_no_model_call(harness):
    s = harness.session([{"tool_calls": [effect("a")]}, {"content": "never asked"}])

    def stop_after_tool(kind, payload):
        if kind == "tool_end":
            s.stop()

    r = s.send("go", on_event=stop_after_tool)
    assert r.status == "interrupted"
    assert r.usage["model_calls"] == 1
    assert s.continue_().text == "never asked"


def test_an_always_rule_that_cannot_be_made_approves_once_and_keeps_the_session_working(harness):
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": "echo 'a\u0000b' > x.txt"}, "id": "c1"}]},
        {"tool_calls": [{"name": "ls", "args": {}, "id": "c2"}]},
        {"content": "done"},
    ]
    s = harness.session(turns)
    assert s.send("go").status == "awaiting_approval"
    r = s.approve(always=True)
    assert r.status == "done", r.error
    assert s.state.get("session_rules") in (None, [])
    assert s.send("next").status == "done"


class OddMetadataArgs(ArgsModel):
    x: str = Field(description="anything")


class OddMetadataTool(Tool):
    name = "deploy"
    description = "Returns metadata that is not JSON."
    args_schema = OddMetadataArgs
    risk_level = RiskLevel.LOW
    runs = 0

    def run(self, params: Any, ctx: Any) -> ToolResult:
        OddMetadataTool.runs += 1
        return ToolResult(output="deployed", metadata={"when": object()})


def test_a_result_with_non_json_metadata_is_journaled_not_lost(harness):
    OddMetadataTool.runs = 0
    model_turns = [{"tool_calls": [{"name": "deploy", "args": {"x": "1"}, "id": "c1"}]}, {"content": "done"}]
    from cairn.graph.models.scripted import ScriptedChatModel

    s = Session(
        harness.ws,
        model=ScriptedChatModel.from_turns(model_turns),
        db=harness.db,
        tools=[OddMetadataTool(Workspace(harness.ws))],
    )
    r = s.send("go")
    assert r.status == "done" and OddMetadataTool.runs == 1
    [entry] = s.store.journal.entries(s.id)
    assert entry.status == "success"


def test_an_edit_is_judged_by_the_policy_again(harness):
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": "touch made.txt"}, "id": "c1"}]},
        {"content": "done"},
    ]
    (harness.ws / "keep.txt").write_text("precious")
    s = harness.session(turns, rules={"deny": ["bash(rm:*)"]})
    assert s.send("go").status == "awaiting_approval"
    r = s.edit("c1", {"command": "rm keep.txt"})
    assert r.status == "done"
    assert (harness.ws / "keep.txt").exists()
    answer = next(m for m in s.history() if isinstance(m, ToolMessage))
    assert "denied by policy" in answer.content


def test_a_decision_sent_before_the_prompt_is_applied_after_recovery(harness, monkeypatch):
    """A run cut off before it reached the approval prompt: retry() recovers, then applies."""
    import cairn.graph.build as build

    original = build.tool_routing
    calls = {"n": 0}

    def crash_once(state, runtime):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("simulated crash before the approval prompt")
        return original(state, runtime)

    monkeypatch.setattr(build, "tool_routing", crash_once)
    import threading

    s = harness.session([{"tool_calls": [effect("e1", seconds=30)]}, {"content": "done"}])

    def stop_once_started() -> None:  # not on a timer: under load the call may start late
        deadline = time.monotonic() + 60
        while not (harness.marks / "started-e1").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        s.stop()

    threading.Thread(target=stop_once_started, daemon=True).start()
    r = s.send("go")
    assert r.status == "error" and [c.status for c in r.pending] == ["interrupted"]
    monkeypatch.setattr(build, "tool_routing", original)
    s.close()
    again = Session.resume(s.id, db=harness.db, model=None, tools=harness.tools())
    again.core._model = __import__(
        "cairn.graph.models.scripted", fromlist=["x"]
    ).ScriptedChatModel.from_turns([{"tool_calls": [effect("e1", seconds=30)]}, {"content": "done"}])
    (harness.marks / "fast").write_text("")
    r = again.retry()
    assert r.status == "done", r
    assert harness.runs() == ["e1", "e1"]
    again.close()


def test_one_run_at_a_time(harness):
    import threading

    s = harness.session([{"tool_calls": [effect("slow", seconds=1)]}, {"content": "done"}])
    started = threading.Event()
    results: list[Any] = []

    def on_event(kind, payload):
        if kind == "tool_start":
            started.set()

    worker = threading.Thread(target=lambda: results.append(s.send("go", on_event=on_event)))
    worker.start()
    assert started.wait(10)
    from cairn import SessionError

    try:
        s.continue_()
        raised = False
    except SessionError:
        raised = True
    worker.join(20)
    assert raised and results[0].status == "done"
    assert harness.runs() == ["slow"]


def test_stop_takes_effect_during_a_slow_model_call(harness):
    import threading
    import time

    s = harness.session([{"content": "too late", "sleep": 5}])
    threading.Timer(0.3, s.stop).start()
    started = time.monotonic()
    r = s.send("go")
    assert time.monotonic() - started < 2.5, "the stop did not wait for the model"
    assert r.status == "interrupted"


def test_rejected_and_denied_calls_emit_their_outcome(harness):
    turns = [
        {
            "tool_calls": [
                effect("g", "gated_effect"),
                {"name": "bash", "args": {"command": "rm -rf /"}, "id": "d1"},
            ]
        },
        {"content": "done"},
    ]
    s = harness.session(turns)
    events: list[tuple[str, dict]] = []
    s.send("go", on_event=lambda k, p: events.append((k, p)))
    s.reject("call_g", "no", on_event=lambda k, p: events.append((k, p)))
    ended = {p["call"]["call_id"]: p["call"]["status"] for k, p in events if k == "tool_end"}
    assert ended == {"d1": "cancelled", "call_g": "cancelled"}
