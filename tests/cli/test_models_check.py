"""``cairn models check`` against the local OpenAI-compatible test server: native tool calls,
tool calls as JSON text, no tool use, an unreachable endpoint, a reported context window."""

from __future__ import annotations

import json

from cairn.graph.apps.cli import main
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

PING = {"tool_calls": [{"name": "ping", "args": {"text": "hello"}, "id": "p1"}]}


def check(capsys, server, *extra: str) -> tuple[int, str]:
    code = main(["models", "check", "--base-url", server.base_url, "--model", "scripted", *extra])
    return code, capsys.readouterr().out


def test_a_server_with_native_tool_calls_and_a_small_window_gets_the_lean_profile(make_openai_server, capsys):  # noqa: F811
    server = make_openai_server([PING], model_info={"max_model_len": 8192})
    code, out = check(capsys, server)
    assert code == 0
    assert "model        scripted  (listed;" in out
    assert "context      8,192 tokens" in out
    assert "tool calls   native" in out and "streaming    yes" in out
    assert "cairn will use the lean tool profile (small context window)" in out
    assert f"run: cairn --base-url {server.base_url} --model scripted --tools lean" in out
    tool_request = server.requests[0]
    assert tool_request["tools"][0]["function"]["name"] == "ping"
    assert server.requests[1]["stream"] is True


def test_tool_calls_written_as_json_text_are_reported_as_recoverable(make_openai_server, capsys):  # noqa: F811
    server = make_openai_server([{"content": '{"name": "ping", "arguments": {"text": "hello"}}'}])
    code, out = check(capsys, server, "--json")
    report = json.loads(out)
    assert code == 0 and report["tool_calls"] == "json-in-text" and report["usable"] is True
    assert report["context_window"] is None and report["profile"] == "full"


def test_a_model_that_never_calls_tools_is_not_usable(make_openai_server, capsys):  # noqa: F811
    server = make_openai_server([{"content": "Hello! How can I help?"}])
    code, out = check(capsys, server)
    assert code == 1
    assert "tool calls   none" in out and "did not call the tool" in out
    assert "cairn cannot work with this endpoint" in out


def test_an_unknown_model_and_an_unreachable_endpoint(make_openai_server, capsys):  # noqa: F811
    server = make_openai_server([PING])
    code = main(["models", "check", "--base-url", server.base_url, "--model", "qwen2.5-coder"])
    out = capsys.readouterr().out
    assert "NOT listed" in out and "the server has: scripted" in out
    url = server.base_url
    server.stop()
    code = main(["models", "check", "--base-url", url, "--model", "scripted"])
    out = capsys.readouterr().out
    assert code == 1 and "[NO]" in out and "is not reachable" in out


def test_usage_errors(capsys):
    assert main(["models", "check"]) == 2
    assert "needs --base-url URL and --model NAME" in capsys.readouterr().err
