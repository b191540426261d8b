"""Spans and metrics of a run with a model call, a tool call, an approval and a sub-agent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from cairn import Session
from cairn.graph.core import telemetry
from cairn.graph.core.telemetry.instruments import session_trace_id
from tests.cost.models import ParentAndAgentModel

CONTENT_KEYS = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
)


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "code.py").write_text("def target():\n    pass\n")
    return root


@pytest.fixture
def recorded():
    def start(log_content: bool = False):
        spans, metrics = InMemorySpanExporter(), InMemoryMetricReader()
        telemetry.configure(span_exporter=spans, metric_reader=metrics, simple=True, log_content=log_content)
        return spans, metrics

    yield start
    telemetry.disable()


def _run(ws, db, *, new_process: bool = False):
    s = Session(ws, model=ParentAndAgentModel(), db=db)
    assert s.send("where is target?").status == "awaiting_approval"
    if new_process:  # the approval comes from another process: what this one noted is gone
        from cairn.graph.core.telemetry import recorder

        recorder._asked_at.clear()
        s.close()
        s = Session.resume(s.id, db=db, model=ParentAndAgentModel())
    assert s.approve().status == "done"
    s.close()
    return s.id


def test_span_tree_and_attributes(ws, db_location, recorded):
    spans, metrics = recorded()
    sid = _run(ws, db_location)
    finished = spans.get_finished_spans()
    by_name: dict[str, list] = {}
    for span in finished:
        by_name.setdefault(span.name, []).append(span)
    assert {span.context.trace_id for span in finished} == {session_trace_id(sid)}, "one trace"
    runs = by_name["invoke_agent cairn"]
    assert len(runs) == 2 and all(r.parent is None for r in runs)  # the ask, then the approved run
    assert [r.attributes["cairn.status"] for r in runs] == ["awaiting_approval", "done"]
    assert all(r.attributes["gen_ai.conversation.id"] == sid for r in runs)
    run_ids = {r.context.span_id for r in runs}
    chats = [c for c in by_name["chat gpt-4o"] if c.parent.span_id in run_ids]
    assert [c.parent.span_id for c in chats] == [runs[0].context.span_id, runs[1].context.span_id]
    first = chats[0].attributes
    assert first["gen_ai.operation.name"] == "chat" and first["gen_ai.request.model"] == "gpt-4o"
    assert first["gen_ai.response.model"] == "gpt-4o"
    assert (first["gen_ai.usage.input_tokens"], first["gen_ai.usage.output_tokens"]) == (100_000, 5_000)
    assert first["gen_ai.usage.cache_read.input_tokens"] == 40_000
    assert round(first["cairn.cost.usd"], 2) == 0.25
    [agent_call] = by_name["execute_tool agent"]
    attrs = agent_call.attributes
    assert agent_call.parent.span_id == runs[1].context.span_id
    assert attrs["gen_ai.tool.name"] == "agent" and attrs["gen_ai.tool.call.id"] == "t1"
    assert attrs["cairn.tool.status"] == "success" and attrs["cairn.risk"]
    assert (attrs["cairn.decision"], attrs["cairn.decided_by"]) == ("approved", "person")
    assert attrs["cairn.approval.wait_s"] >= 0
    [child_run] = by_name["invoke_agent cairn sub-agent"]
    assert child_run.parent.span_id == agent_call.context.span_id, "the sub-agent runs under the agent call"
    assert child_run.attributes["gen_ai.conversation.id"] == f"{sid}-sub-t1"
    [grep] = by_name["execute_tool grep"]
    assert grep.parent.span_id == child_run.context.span_id
    assert (grep.attributes["cairn.decision"], grep.attributes["cairn.decided_by"]) == ("allow", "policy")
    child_chats = [
        s
        for s in finished
        if s.parent is not None
        and s.parent.span_id == child_run.context.span_id
        and s.name.startswith("chat ")
    ]
    assert [c.attributes["gen_ai.response.model"] for c in child_chats] == ["gpt-4o-mini", "gpt-4o-mini"]
    for span in finished:
        assert not set(CONTENT_KEYS) & set(span.attributes), f"content exported from {span.name}"
    names = _metric_points(metrics)
    tokens = names["gen_ai.client.token.usage"]
    assert {p.attributes["gen_ai.token.type"] for p in tokens} == {"input", "output"}
    assert (
        sum(p.sum for p in tokens if p.attributes["gen_ai.token.type"] == "output") == 5_000 + 10_000 + 10_000
    )
    assert sum(p.count for p in names["gen_ai.client.operation.duration"]) == 4
    counts = {
        (p.attributes["gen_ai.tool.name"], p.attributes["cairn.tool.status"]): p.value
        for p in names["cairn.tool.calls"]
    }
    assert counts == {("agent", "success"): 1, ("grep", "success"): 1}


def _metric_points(reader) -> dict[str, list]:
    out: dict[str, list] = {}
    for resource in reader.get_metrics_data().resource_metrics:
        for scope in resource.scope_metrics:
            for metric in scope.metrics:
                out.setdefault(metric.name, []).extend(metric.data.data_points)
    return out


def test_contents_only_with_log_content(ws, db_location, recorded):
    spans, _ = recorded(log_content=True)
    _run(ws, db_location)
    seen: dict[str, list[str]] = {}
    for span in spans.get_finished_spans():
        for key in CONTENT_KEYS:
            if key in span.attributes:
                seen.setdefault(key, []).append(span.attributes[key])
    assert set(seen) == set(CONTENT_KEYS)
    assert any("def target" in args for args in seen["gen_ai.tool.call.arguments"])
    assert any("Where is target defined?" in args for args in seen["gen_ai.tool.call.arguments"])
    assert any("lib/code.py" in result for result in seen["gen_ai.tool.call.result"])


@pytest.mark.sqlite_only("a subprocess with a throwaway store: what it imports is the point")
def test_off_costs_nothing_and_imports_nothing(ws, tmp_path):
    """Without configuration no session has telemetry and cairn imports none of its own."""
    code = (
        "import sys; from cairn import Session; "
        "from cairn.graph.models.scripted import ScriptedChatModel as M; "
        f"s = Session({str(ws)!r}, model=M.from_turns(['hi']), db={str(tmp_path / 'c.db')!r}); "
        "r = s.send('x'); assert r.status == 'done' and s.core.telemetry is None; "
        "print(sorted(m for m in sys.modules if m.startswith('cairn.graph.core.telemetry.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = out.stdout.strip()
    assert "instruments" not in loaded and "recorder" not in loaded, loaded  # the modules importing OTel


def test_config_from_settings_and_environment():
    from cairn.graph.core.telemetry import parse_telemetry

    assert not parse_telemetry([{}, {}], {}).enabled
    on = parse_telemetry([{}], {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert on.enabled and not on.log_content
    assert not parse_telemetry([{"enabled": False}], {"OTEL_EXPORTER_OTLP_ENDPOINT": "x"}).enabled
    assert not parse_telemetry([{"enabled": True}], {"OTEL_SDK_DISABLED": "true"}).enabled
    both = parse_telemetry([{"endpoint": "http://a/", "log_content": True}, {"service_name": "ci"}], {})
    assert both.enabled and both.endpoint == "http://a" and both.log_content and both.service_name == "ci"
    assert parse_telemetry([{}], {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}).log_content
    with pytest.raises(ValueError, match="unknown keys"):
        parse_telemetry([{"endpont": "x"}], {})


def test_a_project_file_cannot_turn_telemetry_on(ws, monkeypatch):
    """A cloned repository's [telemetry] would send prompts and tool output to its endpoint."""
    from cairn.graph.core.telemetry.setup import for_workspace

    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    telemetry.disable()
    project = Path(ws) / ".cairn"
    project.mkdir(exist_ok=True)
    (project / "settings.toml").write_text(
        '[telemetry]\nenabled = true\nendpoint = "http://127.0.0.1:9/v1"\nlog_content = true\n'
    )
    assert for_workspace(Path(ws)) is None
    user = Path(os.environ["CAIRN_HOME"]) / "settings.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('[telemetry]\nenabled = true\nendpoint = "http://127.0.0.1:9/v1"\n')
    on = for_workspace(Path(ws))
    assert on is not None  # the person's own file can (nothing is sent: no span is made here)
    on.shutdown()


def test_approval_wait_is_known_in_another_process(ws, db_location, recorded):
    spans, _ = recorded()
    _run(ws, db_location, new_process=True)
    [agent_call] = [s for s in spans.get_finished_spans() if s.name == "execute_tool agent"]
    assert agent_call.attributes["cairn.decided_by"] == "person"
    assert 0 <= agent_call.attributes["cairn.approval.wait_s"] < 120
