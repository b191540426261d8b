"""cairn.graph.apps.notebook.CellStream: live output of a run, in a kernel (display handles) or as plain lines."""

from __future__ import annotations

import io

import IPython.display
import pytest

from cairn.graph.apps.notebook import CellStream, in_kernel, stream_to_cell
from cairn.graph.core.events import Message, Token, ToolEnd, ToolProgress, ToolStart
from tests.notebooks.test_display import image_nesting

START = {"call_id": "c1", "tool_name": "bash", "arguments": {"command": "pytest -q"}, "risk": "MEDIUM"}
END = START | {"status": "success", "result": "3 passed", "display": "pytest -q: 3 passed"}


def feed(stream: CellStream) -> None:
    for token in ("Running ", "the ", "tests."):
        stream(Token(token))
    stream(Message("Running the tests.", 1, ["c1"]))
    stream(ToolStart(START))
    stream(ToolProgress("c1", "collected 3 items"))
    stream(ToolEnd(END))
    stream(Message("All <b>green</b>.", 0, []))


def feed_old_style(stream: CellStream) -> None:
    """The same run as ``(kind, payload)`` calls, as code written before typed events makes them."""
    for token in ("Running ", "the ", "tests."):
        stream("token", {"text": token})
    stream("message", {"text": "Running the tests.", "tool_calls": 1, "call_ids": ["c1"]})
    stream("tool_start", {"call": START})
    stream("tool_progress", {"call_id": "c1", "line": "collected 3 items"})
    stream("tool_end", {"call": END})
    stream("message", {"text": "All <b>green</b>.", "tool_calls": 0, "call_ids": []})


def test_plain_mode_prints_tokens_and_one_line_per_tool_event():
    out = io.StringIO()
    feed(stream_to_cell(rich=False, file=out))
    assert out.getvalue().splitlines() == [
        "Running the tests.",
        "▶ executing bash: pytest -q",
        "  │ collected 3 items",
        "✓ success bash: pytest -q: 3 passed",
        "All <b>green</b>.",
    ]


def test_old_style_calls_show_the_same_lines():
    new, old = io.StringIO(), io.StringIO()
    feed(stream_to_cell(rich=False, file=new))
    feed_old_style(stream_to_cell(rich=False, file=old))
    assert old.getvalue() == new.getvalue() != ""


def test_unknown_events_are_ignored():
    out = io.StringIO()
    stream = CellStream(rich=False, file=out)
    stream("something_new", {"x": 1})
    assert out.getvalue() == ""


class FakeHandle:
    def __init__(self, log: list, obj) -> None:
        self.log, self.views = log, [obj]

    def update(self, obj) -> None:
        self.views.append(obj)


@pytest.fixture
def displayed(monkeypatch):
    handles: list[FakeHandle] = []

    def fake_display(obj, display_id=False):
        assert display_id is True
        handles.append(FakeHandle(handles, obj))
        return handles[-1]

    monkeypatch.setattr(IPython.display, "display", fake_display)
    return handles


def test_kernel_mode_updates_display_handles_in_place(displayed):
    feed(CellStream(rich=True, min_interval=0))
    text1, tool, text2 = displayed
    assert repr(text1.views[-1]) == "Running the tests."
    assert [repr(v) for v in tool.views] == [
        "▶ executing bash: pytest -q",
        "▶ executing bash: pytest -q\ncollected 3 items",
        "✓ success bash: pytest -q: 3 passed",
    ]
    final = tool.views[-1]._repr_html_()
    assert "cairn-success" in final and "MEDIUM" in final and "3 passed" in final and "<details>" in final
    assert "&lt;b&gt;green&lt;/b&gt;" in text2.views[-1]._repr_html_()


def test_kernel_mode_throttles_token_updates(displayed):
    stream = CellStream(rich=True, min_interval=60)
    for _ in range(100):
        stream(Token("x"))
    stream(Message("x" * 100, 0, []))
    [handle] = displayed
    assert len(handle.views) == 2 and repr(handle.views[-1]) == "x" * 100


def test_image_of_a_finished_call_is_shown(displayed):
    png = "iVBORw0KGgo="
    call = END | {"tool_name": "read_file", "metadata": {"image": {"mime_type": "image/png", "base64": png}}}
    CellStream(rich=True)(ToolEnd(call))
    html = displayed[0].views[-1]._repr_html_()
    assert f"data:image/png;base64,{png}" in html
    assert image_nesting(html) == [[]]  # shown, not inside the collapsed details


def test_not_in_a_kernel_here():
    assert in_kernel() is False
    assert CellStream().rich is False


def test_compaction_shows_one_line_in_the_cell():
    out = io.StringIO()
    stream = stream_to_cell(rich=False, file=out)
    event = {
        "trigger": "auto",
        "source": "model",
        "summarized": 42,
        "tokens_before": 96000,
        "tokens_after": 21000,
    }
    stream("compacted", event)
    stream("compacted", {"skipped": True, "trigger": "manual", "reason": "nothing old enough to summarize"})
    assert out.getvalue().splitlines() == [
        "(compacted: 42 earlier messages summarized by the model; prompt ~96,000 → ~21,000 tokens)",
        "(nothing compacted: nothing old enough to summarize)",
    ]


def test_subagent_events_print_an_indented_tree():
    out = io.StringIO()
    stream = stream_to_cell(rich=False, file=out)
    stream("subagent_start", {"agent_id": "p-sub-c9", "mode": "sync", "description": "look around"})
    stream("subagent_event", {"agent_id": "p-sub-c9", "event": "tool_start", "call": START})
    stream("subagent_event", {"agent_id": "p-sub-c9", "event": "tool_end", "call": END})
    stream("subagent_end", {"agent_id": "p-sub-c9", "status": "done"})
    assert out.getvalue().splitlines() == [
        "┌ sub-agent look around (sync, p-sub-c9)",
        "│   ✓ success bash: pytest -q: 3 passed",
        "└ sub-agent p-sub-c9: done",
    ]
