"""The real langchain_openai.ChatOpenAI client against the scripted OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool

from cairn.graph.models import (
    create_model,
    describe_model_error,
    is_transient_model_error,
    recover_text_tool_calls,
)
from tests.support.fixtures import make_openai_server, openai_server
from tests.support.openai_server import find_dangling_tool_calls, find_orphan_tool_messages

__all__ = ["make_openai_server"]  # the fixture is used by name below

REPO = Path(__file__).resolve().parents[2]
PARALLEL = {
    "content": "Reading both.",
    "tool_calls": [
        {"name": "read_file", "args": {"path": "src/app.py", "limit": 40}, "id": "call_a"},
        {"name": "read_file", "args": {"path": "README.md"}, "id": "call_b"},
    ],
}


@tool
def read_file(path: str, limit: int = 100) -> str:
    """Read a file."""
    return path


def model_for(server, **kwargs):
    return create_model("scripted-test", base_url=server.base_url, **kwargs)


def aggregate(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_plain_text_with_usage(make_openai_server):
    server = make_openai_server([{"content": "Hello from the server"}])
    reply = model_for(server).invoke([HumanMessage("say hello please")])
    assert reply.content == "Hello from the server"
    assert reply.usage_metadata["input_tokens"] == 3
    assert reply.usage_metadata["output_tokens"] == 4
    assert server.requests[0]["messages"] == [{"role": "user", "content": "say hello please"}]
    assert server.request_headers[0]["authorization"] == "Bearer not-needed"


def test_streaming_delivers_tokens_and_usage(make_openai_server):
    server = make_openai_server([{"content": "one two three four"}])
    chunks = list(model_for(server).stream("count"))
    assert [c.content for c in chunks if c.content] == ["one ", "two ", "three ", "four"]
    total = aggregate(chunks)
    assert total.content == "one two three four"
    assert total.usage_metadata["output_tokens"] == 4 and total.usage_metadata["input_tokens"] == 1
    assert server.requests[0]["stream"] is True
    assert server.requests[0]["stream_options"] == {"include_usage": True}


def test_tool_call_non_streaming_sends_tools_and_parses_the_call(make_openai_server):
    server = make_openai_server(
        [{"tool_calls": [{"name": "read_file", "args": {"path": "a.py"}, "id": "c1"}]}]
    )
    reply = model_for(server).bind_tools([read_file]).invoke("read a.py")
    assert reply.tool_calls == [
        {"name": "read_file", "args": {"path": "a.py"}, "id": "c1", "type": "tool_call"}
    ]
    assert reply.response_metadata["finish_reason"] == "tool_calls"
    assert server.requests[0]["tools"][0]["function"]["name"] == "read_file"


def test_parallel_tool_calls_streamed_and_not_agree(make_openai_server):
    server = make_openai_server([PARALLEL])
    model = model_for(server).bind_tools([read_file])
    plain = model.invoke("go")
    chunks = list(model.stream("go"))
    streamed = aggregate(chunks)
    # Arguments arrived split over several deltas and were reassembled by the client.
    assert sum(1 for c in chunks if c.tool_call_chunks) >= 6
    expected = [("call_a", {"path": "src/app.py", "limit": 40}), ("call_b", {"path": "README.md"})]
    assert [(c["id"], c["args"]) for c in plain.tool_calls] == expected
    assert [(c["id"], c["args"]) for c in streamed.tool_calls] == expected
    assert streamed.content == plain.content == "Reading both."


def test_turn_follows_the_assistant_messages_in_the_request(make_openai_server):
    server = make_openai_server([PARALLEL, {"content": "Both files read."}])
    model = model_for(server)
    first = model.invoke("go")
    history = [
        HumanMessage("go"),
        first,
        ToolMessage("code", tool_call_id="call_a"),
        ToolMessage("docs", tool_call_id="call_b"),
    ]
    assert model.invoke(history).content == "Both files read."
    assert find_dangling_tool_calls(server.requests[1]) == []
    assert find_orphan_tool_messages(server.requests[1]) == []


def test_429_then_success_is_retried_by_the_client(make_openai_server):
    server = make_openai_server([{"content": "finally", "http_error": 429, "times": 2}])
    assert model_for(server).invoke("hi").content == "finally"
    assert len(server.requests) == 3  # two 429s, then the answer


def test_persistent_500_raises_a_catchable_transient_error(make_openai_server):
    server = make_openai_server([{"content": "never", "http_error": 500, "times": 99}])
    with pytest.raises(Exception) as info:
        list(model_for(server, max_retries=2).stream("hi"))
    assert len(server.requests) == 3
    assert is_transient_model_error(info.value)
    assert describe_model_error(info.value).startswith("the model server failed (HTTP 500)")


def test_scripted_error_turn_and_bad_request_are_not_retried_forever(make_openai_server):
    server = make_openai_server([{"error": {"status": 400, "message": "malformed tools"}}])
    with pytest.raises(Exception) as info:
        model_for(server).invoke("hi")
    assert len(server.requests) == 1  # 400 is not retried
    assert not is_transient_model_error(info.value)
    assert "malformed tools" in describe_model_error(info.value)


def test_timeout_is_transient(make_openai_server):
    server = make_openai_server([{"content": "late", "sleep": 1.0}])
    with pytest.raises(Exception) as info:
        model_for(server, timeout=0.2, max_retries=0).invoke("hi")
    assert is_transient_model_error(info.value)
    assert "did not answer in time" in describe_model_error(info.value)


def test_text_json_tool_call_from_a_small_model_is_recovered(make_openai_server):
    text = 'Sure.\n```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```'
    server = make_openai_server([{"content": text}, "thanks"])
    model = model_for(server).bind_tools([read_file])
    for reply in (model.invoke("read a.py"), aggregate(list(model.stream("read a.py")))):
        assert reply.tool_calls == []
        fixed = recover_text_tool_calls(reply, {"read_file"})
        assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [("read_file", {"path": "a.py"})]
        assert fixed.content == "Sure."
    # Sent back, the recovered call is a real tool call that its ToolMessage answers.
    call_id = fixed.tool_calls[0]["id"]
    model.invoke([HumanMessage("read a.py"), fixed, ToolMessage("x = 1", tool_call_id=call_id)])
    sent = server.requests[-1]
    assert sent["messages"][1]["tool_calls"][0]["function"]["name"] == "read_file"
    assert find_dangling_tool_calls(sent) == []


def test_async_client_streams_too(make_openai_server):
    server = make_openai_server([PARALLEL])

    async def run() -> AIMessageChunk:
        return aggregate([c async for c in model_for(server).astream("go")])

    assert [c["id"] for c in asyncio.run(run()).tool_calls] == ["call_a", "call_b"]


def test_dangling_tool_call_in_a_request_is_detected(make_openai_server):
    server = make_openai_server([PARALLEL, {"content": "ok"}])
    model = model_for(server)
    first = model.invoke("go")
    model.invoke([HumanMessage("go"), first, ToolMessage("code", tool_call_id="call_a")])
    assert find_dangling_tool_calls(server.requests[1]) == ["call_b"]


def test_find_helpers_on_hand_written_bodies():
    call = {"id": "x", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ok = {"messages": [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "tool_call_id": "x"}]}
    assert find_dangling_tool_calls(ok) == [] and find_orphan_tool_messages(ok) == []
    late = {
        "messages": [
            {"role": "assistant", "tool_calls": [call]},
            {"role": "user", "content": "hm"},
            {"role": "tool", "tool_call_id": "x"},
        ]
    }
    assert find_dangling_tool_calls(late) == ["x"] and find_orphan_tool_messages(late) == ["x"]
    twice = {"messages": [*ok["messages"], {"role": "tool", "tool_call_id": "x"}]}
    assert find_orphan_tool_messages(twice) == ["x"]


def test_models_endpoint_errors_and_routes():
    with openai_server([]) as server:
        models = httpx.get(f"{server.base_url}/models").json()
        assert models["data"][0]["id"] == "scripted"
        assert httpx.get(f"{server.base_url}/nope").status_code == 404
        bad = httpx.post(f"{server.base_url}/chat/completions", content=b"[not json")
        assert bad.status_code == 400 and "error" in bad.json()
        end = httpx.post(f"{server.base_url}/chat/completions", json={"messages": []}).json()
        assert end["choices"][0]["message"]["content"] == "(end of script)"


def test_command_line_server_prints_its_port_and_logs_requests(tmp_path):
    script, log = tmp_path / "script.json", tmp_path / "requests.jsonl"
    script.write_text(json.dumps({"turns": [{"content": "from a subprocess"}]}))
    command = [sys.executable, "-m", "tests.support.openai_server", "--script", str(script)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*command, "--requests-log", str(log)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        first_line = proc.stdout.readline().strip()
        assert first_line.startswith("PORT=")
        port = int(first_line.removeprefix("PORT="))
        model = create_model("m", base_url=f"http://127.0.0.1:{port}/v1")
        assert model.invoke("hello there").content == "from a subprocess"
        logged = [json.loads(line) for line in log.read_text().splitlines()]
        assert logged[0]["messages"][0]["content"] == "hello there"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_every_recorded_request_of_a_tool_loop_is_well_formed(make_openai_server):
    """A miniature agent loop: every request the client sent pairs each tool call with a result."""
    server = make_openai_server(
        [PARALLEL, {"tool_calls": [{"name": "read_file", "args": {"path": "c"}}]}, "done"]
    )
    model = model_for(server).bind_tools([read_file])
    messages: list = [HumanMessage("go")]
    while True:
        reply: AIMessage = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages += [
            ToolMessage(f"contents of {c['args']['path']}", tool_call_id=c["id"]) for c in reply.tool_calls
        ]
    assert messages[-1].content == "done" and len(server.requests) == 3
    assert all(find_dangling_tool_calls(body) == [] for body in server.requests)
