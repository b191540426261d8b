"""create_model, model-error classification, and recovery of tool calls printed as JSON text."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage

from cairn.graph.models import (
    DEFAULT_MAX_RETRIES,
    ModelConfigError,
    create_model,
    describe_model_error,
    is_transient_model_error,
    recover_text_tool_calls,
)
from cairn.graph.models.script import ScriptedModelError
from cairn.graph.models.scripted import ScriptedChatModel

TOOLS = {"read_file", "bash", "grep"}


@pytest.fixture
def script_file(tmp_path):
    path = tmp_path / "demo.json"
    path.write_text(json.dumps([{"content": "from the script"}]))
    return path


# -- create_model --------------------------------------------------------------------------------------


def test_script_spec_builds_a_scripted_model(script_file):
    model = create_model(f"script:{script_file}")
    assert isinstance(model, ScriptedChatModel)
    assert model.invoke("hi").content == "from the script"


def test_spec_defaults_to_cairn_model_then_openai_model(monkeypatch, script_file):
    monkeypatch.setenv("CAIRN_MODEL", f"script:{script_file}")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-ignored")
    assert isinstance(create_model(), ScriptedChatModel)
    monkeypatch.delenv("CAIRN_MODEL")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert create_model().model_name == "gpt-ignored"
    monkeypatch.delenv("OPENAI_MODEL")
    assert create_model().model_name == "gpt-4o-mini"


def test_missing_key_and_endpoint_explains_every_option():
    with pytest.raises(ModelConfigError) as info:
        create_model("gpt-4o")
    assert isinstance(info.value, ValueError)
    text = str(info.value)
    for needle in ("'gpt-4o'", "OPENAI_API_KEY", "OPENAI_BASE_URL", "--base-url", "Ollama", "vLLM"):
        assert needle in text
    assert "llama.cpp" in text and "LM Studio" in text and "script:FILE" in text
    assert describe_model_error(info.value) == text


def test_base_url_without_key_uses_a_placeholder_key():
    model = create_model("qwen2.5-coder", base_url="http://localhost:11434/v1")
    assert model.openai_api_key.get_secret_value() == "not-needed"
    assert model.openai_api_base == "http://localhost:11434/v1"


def test_environment_supplies_key_and_base_url_and_arguments_win(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env:8000/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    from_env = create_model("m")
    assert from_env.openai_api_base == "http://env:8000/v1"
    assert from_env.openai_api_key.get_secret_value() == "sk-env"
    explicit = create_model("m", base_url="http://arg:1/v1", api_key="sk-arg")
    assert explicit.openai_api_base == "http://arg:1/v1"
    assert explicit.openai_api_key.get_secret_value() == "sk-arg"


def test_chat_openai_gets_retries_timeout_usage_and_temperature(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = create_model("openai:gpt-4.1", temperature=0.2)
    assert model.model_name == "gpt-4.1"  # the provider prefix is accepted and stripped
    assert model.max_retries == DEFAULT_MAX_RETRIES
    assert model.stream_usage is True and model.temperature == 0.2
    assert model.request_timeout == 300.0
    monkeypatch.setenv("CAIRN_MODEL_TIMEOUT", "42")
    assert create_model("m").request_timeout == 42.0
    assert create_model("m", max_retries=0, timeout=1.5).max_retries == 0


@pytest.mark.parametrize("spec", ["script:", "script:/no/such/file.json"])
def test_bad_script_specs_raise_model_config_error(spec):
    with pytest.raises(ModelConfigError, match="script"):
        create_model(spec)


def test_importing_models_does_not_import_langchain_openai():
    code = "import sys, cairn.graph.models; print('langchain_openai' in sys.modules, 'openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


# -- error classification ------------------------------------------------------------------------------


class FakeStatusError(Exception):
    def __init__(self, status_code: int, body: dict | None = None) -> None:
        super().__init__(f"Error code: {status_code}")
        self.status_code = status_code
        self.body = body


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (ScriptedModelError(429, "slow down"), True),
        (ScriptedModelError(500, "boom"), True),
        (ScriptedModelError(503, "overloaded"), True),
        (ScriptedModelError(408, "timeout"), True),
        (ScriptedModelError(400, "bad request"), False),
        (ScriptedModelError(401, "no key"), False),
        (FakeStatusError(429, {"code": "insufficient_quota", "message": "pay up"}), False),
        (TimeoutError("read timed out"), True),
        (ConnectionResetError("reset"), True),
        (ValueError("not a model error"), False),
    ],
)
def test_is_transient_model_error(exc, transient):
    assert is_transient_model_error(exc) is transient


def test_transient_cause_is_found_behind_a_wrapper():
    try:
        try:
            raise ScriptedModelError(502, "bad gateway")
        except ScriptedModelError as inner:
            raise RuntimeError("node failed") from inner
    except RuntimeError as outer:
        assert is_transient_model_error(outer)
        assert "HTTP 502" in describe_model_error(outer)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ScriptedModelError(429, "slow down"), "rate limited by the model server (HTTP 429): slow down"),
        (ScriptedModelError(500, "boom"), "the model server failed (HTTP 500): boom"),
        (
            ScriptedModelError(401, "bad key"),
            "authentication failed (check OPENAI_API_KEY) (HTTP 401): bad key",
        ),
        (FakeStatusError(429, {"code": "insufficient_quota", "message": "pay"}), "no quota left"),
        (FakeStatusError(400, {"code": "context_length_exceeded", "message": "x"}), "too long"),
        (TimeoutError(), "did not answer in time"),
        (ValueError("odd\nsecond line"), "ValueError: odd"),
    ],
)
def test_describe_model_error_is_short_and_specific(exc, expected):
    text = describe_model_error(exc)
    assert expected in text and "\n" not in text and len(text) < 300


# -- recovering tool calls printed as text -------------------------------------------------------------


def recovered(content, **kwargs) -> AIMessage:
    return recover_text_tool_calls(AIMessage(content=content, id="msg-1"), TOOLS, **kwargs)


def calls(message: AIMessage) -> list[tuple[str, dict]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def test_bare_json_reply_becomes_a_tool_call():
    out = recovered('{"name": "read_file", "arguments": {"path": "a.py"}}')
    assert calls(out) == [("read_file", {"path": "a.py"})]
    assert out.content == "" and out.tool_calls[0]["id"].startswith("call_text_")


def test_fenced_json_is_recovered_and_the_prose_kept():
    text = 'I will read it.\n```json\n{"name": "read_file", "parameters": {"path": "b.py"}}\n```\nThen fix.'
    out = recovered(text)
    assert calls(out) == [("read_file", {"path": "b.py"})]
    assert out.content == "I will read it.\n\nThen fix."


def test_of_a_list_of_calls_written_as_text_the_first_runs():
    """One at a time (issue 31): the later calls were written before the first one's result."""
    text = json.dumps(
        [{"name": "grep", "args": {"pattern": "x"}}, {"name": "bash", "arguments": {"command": "ls"}}]
    )
    out = recovered(text)
    assert calls(out) == [("grep", {"pattern": "x"})] and out.content == ""
    fenced = recovered(
        '```json\n{"name": "grep", "args": {"pattern": "x"}}\n```\n```json\n{"name": "bash", "args": {}}\n```'
    )
    assert calls(fenced) == [("grep", {"pattern": "x"})]


def test_other_shapes_models_print():
    tagged = recovered('<tool_call>\n{"name": "bash", "arguments": {"command": "pwd"}}\n</tool_call>')
    assert calls(tagged) == [("bash", {"command": "pwd"})]
    as_string = recovered('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}')
    assert calls(as_string) == [("bash", {"command": "ls"})]
    wire = recovered('{"type": "function", "function": {"name": "grep", "arguments": {"pattern": "y"}}}')
    assert calls(wire) == [("grep", {"pattern": "y"})]
    alias = recover_text_tool_calls(AIMessage(content='{"name": "Read", "args": {"path": "a"}}'), {"read"})
    assert calls(alias) == [("Read", {"path": "a"})]
    blocks = recovered([{"type": "text", "text": '{"name": "bash", "arguments": {"command": "id"}}'}])
    assert calls(blocks) == [("bash", {"command": "id"})]


@pytest.mark.parametrize(
    "content",
    [
        '{"name": "delete_everything", "arguments": {}}',  # unknown tool
        'Call it like {"name": "read_file", "arguments": {"path": "a.py"}} for example.',  # mid-prose
        '{"name": "read_file", "arguments": {"path": "a"}, "confidence": 0.9}',  # not a call's keys
        '{"name": "read_file", "arguments": [1, 2]}',  # arguments not an object
        '[{"name": "read_file", "arguments": {}}, {"name": "nope", "arguments": {}}]',  # one unknown
        "[]",
        "plain text answer",
        [{"type": "image_url", "image_url": {"url": "data:"}}],
    ],
)
def test_non_calls_are_left_unchanged(content):
    message = AIMessage(content=content, id="msg-1")
    assert recover_text_tool_calls(message, TOOLS) is message


def test_structured_tool_calls_are_never_touched():
    message = AIMessage(
        content='{"name": "bash", "arguments": {"command": "ls"}}',
        tool_calls=[{"name": "grep", "args": {}, "id": "real"}],
    )
    assert recover_text_tool_calls(message, TOOLS) is message


def test_ids_are_deterministic_and_differ_between_messages():
    text = '{"name": "bash", "arguments": {"command": "ls"}}'
    first = recover_text_tool_calls(AIMessage(content=text, id="m1"), TOOLS).tool_calls[0]["id"]
    again = recover_text_tool_calls(AIMessage(content=text, id="m1"), TOOLS).tool_calls[0]["id"]
    other = recover_text_tool_calls(AIMessage(content=text, id="m2"), TOOLS).tool_calls[0]["id"]
    assert first == again and first != other
    assert recovered(text, id_prefix="call_text_7").tool_calls[0]["id"] == "call_text_7_0"


def test_never_raises_on_strange_messages():
    class Weird:
        tool_calls = property(lambda self: 1 / 0)

    assert recover_text_tool_calls(Weird(), TOOLS).__class__ is Weird  # type: ignore[arg-type]


PIECES = [
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    " ",
    "\n",
    '"name"',
    '"read_file"',
    '"nope"',
    '"arguments"',
    '"x"',
    "1",
]
PIECES += ["```json\n", "```", "<tool_call>", "</tool_call>", "null", '"{}"']


@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a loaded machine is slow, not wrong
def test_recovery_never_raises_and_only_names_registered_tools(text):
    out = recover_text_tool_calls(AIMessage(content=text), TOOLS)
    assert all(call["name"].lower() in TOOLS and isinstance(call["args"], dict) for call in out.tool_calls)
