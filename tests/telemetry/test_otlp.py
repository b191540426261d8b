"""Spans and metrics reach a real OTLP/HTTP receiver on 127.0.0.1; a SIGKILL + resume is one trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.proto", reason="the otel extra (and opentelemetry-proto) is not installed")

from cairn import Session
from cairn.graph.core import telemetry
from cairn.graph.core.telemetry.instruments import session_trace_id
from tests.cost.models import ParentAndAgentModel
from tests.telemetry.receiver import Receiver

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def receiver(monkeypatch):
    with Receiver() as rx:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rx.endpoint)
        yield rx
        telemetry.disable()


def test_a_run_arrives_at_an_otlp_receiver(tmp_path, db_location, receiver):
    ws = tmp_path / "ws"
    (ws / "lib").mkdir(parents=True)
    (ws / "lib" / "code.py").write_text("def target():\n    pass\n")
    s = Session(ws, model=ParentAndAgentModel(), db=db_location)  # configured by OTEL_* alone
    assert s.core.telemetry is not None
    s.send("where is target?")
    s.approve()
    s.core.telemetry.flush()
    s.close()
    names = [span["name"] for span in receiver.spans]
    assert names.count("invoke_agent cairn") == 2 and "invoke_agent cairn sub-agent" in names
    assert {"execute_tool agent", "execute_tool grep", "chat gpt-4o"} <= set(names)
    assert {span["trace_id"] for span in receiver.spans} == {session_trace_id(s.id)}
    agent = next(span for span in receiver.spans if span["name"] == "execute_tool agent")
    child = next(span for span in receiver.spans if span["name"] == "invoke_agent cairn sub-agent")
    assert child["parent_span_id"] == agent["span_id"]
    assert agent["attributes"]["cairn.decided_by"] == "person"
    assert agent["attributes"]["gen_ai.conversation.id"] == s.id
    chat = next(span for span in receiver.spans if span["name"] == "chat gpt-4o")
    assert chat["attributes"]["gen_ai.usage.input_tokens"] == 100_000
    assert "gen_ai.output.messages" not in chat["attributes"]
    assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "cairn.tool.calls"} <= set(
        receiver.metrics
    )


@pytest.mark.slow
def test_sigkill_and_resume_make_one_trace(tmp_path, db_location, receiver, monkeypatch):
    from tests.graph.test_recovery_kill import Harness, call

    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "20")  # ms: the first process exports before the kill
    turns = [{"content": "working", "tool_calls": [call("effect", "slow", 60)]}, {"content": "finished"}]
    h = Harness(tmp_path, turns, db_location)
    proc = subprocess.Popen(h._cmd("--send", "go"), cwd=ROOT, env=h._env(), stdout=subprocess.PIPE, text=True)
    h.session_id = json.loads(proc.stdout.readline())["session_id"]
    deadline = time.monotonic() + 30
    while not ((h.marks / "started-slow").exists() and receiver.spans):  # the tool runs; a span is out
        assert proc.poll() is None and time.monotonic() < deadline, "the first process never got there"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    before = list(receiver.spans)
    assert [s["name"] for s in before] == ["chat scripted"], "the killed run's model call was exported"
    (h.marks / "fast").write_text("")
    assert h.run("--continue")["status"] == "interrupted"
    assert h.run("--retry")["status"] == "done"
    spans = receiver.spans
    assert len(spans) > len(before)
    assert {s["trace_id"] for s in spans} == {session_trace_id(h.session_id)}, "one trace across the kill"
    assert [s["attributes"]["cairn.status"] for s in spans if s["name"] == "invoke_agent cairn"] == [
        "interrupted",
        "done",
    ]
    effect = [s for s in spans if s["name"] == "execute_tool effect"]
    assert effect and effect[-1]["attributes"]["cairn.tool.status"] == "success"
