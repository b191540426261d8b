"""Typed events (``cairn.graph.core.events``): every kind emitted is a class there, every class is
handled or explicitly ignored by each frontend, and old ``(kind, payload)`` callbacks still work."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from cairn.graph.core import events as ev
from cairn.graph.core.events import ALL_EVENTS, event_callback, from_payload

GRAPH = Path(__file__).resolve().parents[2] / "graph"
NAMES = {cls.__name__ for cls in ALL_EVENTS}
#: Each frontend's dispatch: (file, function whose ``match`` must name every event class).
FRONTENDS = [
    ("apps/cli/tui/render.py", "on_event"),
    ("apps/notebook/stream.py", "__call__"),
    ("apps/cli/output.py", "stream_json_line"),
    ("apps/acp/updates.py", "translate"),
    ("core/telemetry/recorder.py", "observe"),
]
#: One instance of each kind, with the values a run gives them.
SAMPLES: list[ev.Event] = [
    ev.Token("hi"),
    ev.Thought("the user wants a list"),
    ev.Message("hello", 1, ["c1"]),
    ev.ToolStart({"call_id": "c1", "tool_name": "ls", "status": "pending"}),
    ev.ToolProgress("c1", "a line"),
    ev.ToolEnd({"call_id": "c1", "tool_name": "ls", "status": "success"}),
    ev.Compacted("auto", "model", 4, 2, 900, 300, None),
    ev.Compacted("manual", skipped=True, reason="nothing old enough to summarize"),
    ev.SubagentStart("s-sub-p1", "sync", None),
    ev.SubagentEvent.of("s-sub-p1", ev.ToolEnd({"call_id": "g1", "tool_name": "grep"})),
    ev.SubagentEvent("s-sub-p1", "approval_request", calls=["g2"]),
    ev.SubagentEnd("s-sub-p1", "done", usage={"model_calls": 1}),
    ev.SubagentEnd("s-sub-p1", "error", error="boom"),
    ev.Waiting("s", ["c1"], None),
    ev.DecisionRefused("s", "bad arguments"),
]


def _function(path: Path, name: str) -> ast.FunctionDef:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)


def _class_names(pattern: ast.pattern) -> set[str]:
    return {
        n.cls.id if isinstance(n.cls, ast.Name) else n.cls.attr
        for n in ast.walk(pattern)
        if isinstance(n, ast.MatchClass) and isinstance(n.cls, ast.Name | ast.Attribute)
    }


@pytest.mark.parametrize(("path", "function"), FRONTENDS)
def test_each_frontend_handles_or_ignores_every_event_class(path, function):
    [match] = [n for n in ast.walk(_function(GRAPH / path, function)) if isinstance(n, ast.Match)]
    named: set[str] = set()
    for case in match.cases:
        # a catch-all (``case _``, ``case x``) would hide a class nobody thought about
        assert not isinstance(case.pattern, ast.MatchAs), f"{path}: a catch-all case"
        named |= {n for n in _class_names(case.pattern) if n in NAMES}  # top level: the event class
    assert named == NAMES, f"{path} does not name: {sorted(NAMES - named)}"


def test_the_graph_emits_only_event_classes_and_dispatches_on_types_only():
    """Every ``emit(...)``/``_emit(...)`` in graph/ builds one of the classes; no ``_on_`` lookups."""
    seen = 0
    for path in GRAPH.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert 'f"_on_' not in text and '"_on_" +' not in text, f"{path}: dispatch by name"
        for node in ast.walk(ast.parse(text)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("emit", "_emit") or not node.args:
                continue
            seen += 1
            [arg] = node.args
            assert isinstance(arg, ast.Call), f"{path}:{node.lineno}: emits a {type(arg).__name__}"
            made = arg.func.id if isinstance(arg.func, ast.Name) else ast.unparse(arg.func).split(".")[0]
            assert made in NAMES, f"{path}:{node.lineno}: emits {made}, not a class of graph/core/events.py"
    assert seen >= 15  # the nodes' and the sub-agents' call sites were found


def test_a_run_emits_event_objects_only(tmp_path, monkeypatch):
    """A strict callback through a real run: each event is one of ALL_EVENTS, of its own kind."""
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("x\n")
    turns = [
        {
            "content": "look",
            "tool_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}, "id": "r1"}],
        },
        {"content": "done"},
    ]
    got: list[ev.Event] = []

    def strict(event: ev.Event) -> None:
        assert isinstance(event, ALL_EVENTS) and ev.BY_KIND[event.kind] is type(event)
        got.append(event)

    with Session(
        tmp_path / "ws", model=ScriptedChatModel.from_turns(turns), db=":memory:", mode="bypass"
    ) as s:
        assert s.send("go", stream=True, on_event=strict).status == "done"
    kinds = [e.kind for e in got]
    assert {"token", "message", "tool_start", "tool_end"} <= set(kinds)
    assert kinds.index("tool_start") < kinds.index("tool_end")


def test_kinds_are_unique_and_old_names():
    assert [cls.kind for cls in ALL_EVENTS] == list(ev.BY_KIND)
    assert set(ev.BY_KIND) == {
        "token",
        "thought",
        "message",
        "tool_start",
        "tool_progress",
        "tool_end",
        "compacted",
        "subagent_start",
        "subagent_event",
        "subagent_end",
        "waiting",
        "hook",
        "notification",
        "decision_refused",
    }


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.kind)
def test_payload_round_trips_and_keeps_the_field_order(event):
    payload = event.payload()
    assert from_payload(event.kind, payload) == event
    if not getattr(event, "skipped", False):  # (a skipped compaction keeps its own old order)
        order = [f.name for f in fields(event)]
        assert list(payload) == sorted(payload, key=order.index)


def test_payloads_have_the_old_keys():
    assert ev.Compacted("manual", skipped=True, reason="r").payload() == {
        "skipped": True,
        "trigger": "manual",
        "reason": "r",
    }
    assert list(ev.Compacted("auto", "model", 1, 2, 3, 4, None).payload()) == [
        "trigger",
        "source",
        "summarized",
        "kept",
        "tokens_before",
        "tokens_after",
        "focus",
    ]
    wrapped = ev.SubagentEvent.of("a", ev.ToolStart({"call_id": "c"}))
    assert wrapped.payload() == {"agent_id": "a", "event": "tool_start", "call": {"call_id": "c"}}
    assert wrapped.child == ev.ToolStart({"call_id": "c"})
    asks = ev.SubagentEvent("a", "approval_request", calls=["x"]).payload()
    assert asks == {"agent_id": "a", "event": "approval_request", "calls": ["x"]}
    assert ev.SubagentEnd("a", "error", error="e").payload() == {
        "agent_id": "a",
        "status": "error",
        "error": "e",
    }
    assert ev.Waiting("s", [], None).payload() == {"session_id": "s", "call_ids": [], "timeout": None}


def test_old_style_callbacks_get_kind_and_payload_new_style_get_the_object():
    old: list[tuple[str, dict]] = []
    new: list[ev.Event] = []
    adapted = event_callback(lambda kind, payload: old.append((kind, payload)))
    assert adapted is not None
    adapted(ev.Token("x"))
    assert old == [("token", {"text": "x"})]
    assert event_callback(adapted) is adapted  # idempotent: the Session may adapt twice
    direct = new.append
    assert event_callback(direct) is direct
    direct(ev.Token("y"))
    assert new == [ev.Token("y")]
    assert event_callback(None) is None


def test_the_session_adapts_old_style_callbacks(tmp_path, monkeypatch):
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    (tmp_path / "ws").mkdir()
    events: list[tuple[str, dict]] = []
    model = ScriptedChatModel.from_turns([{"content": "hello there"}])
    with Session(tmp_path / "ws", model=model, db=":memory:") as s:
        s.send("go", stream=True, on_event=lambda k, p: events.append((k, p)))
    assert ("message", {"text": "hello there", "tool_calls": 0, "call_ids": []}) in events
    assert "".join(p["text"] for k, p in events if k == "token") == "hello there"
