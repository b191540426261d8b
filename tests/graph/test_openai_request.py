"""The model request skips the OpenAI SDK's per-message typed transform, and loses nothing."""

from __future__ import annotations

import openai
import openai._utils._transform as sdk_transform
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_openai import ChatOpenAI

from cairn.graph.models import create_model
from cairn.graph.models.openai_chat import CairnChatOpenAI, OrjsonOpenAI
from tests.support.fixtures import openai_server

TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run a command.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    },
}


def _history(turns: int) -> list:
    out: list = [SystemMessage("sys"), HumanMessage("go ☃")]
    for i in range(turns):
        out.append(
            AIMessage(
                f"step {i}", tool_calls=[{"name": "bash", "args": {"command": f"ls {i}"}, "id": f"c{i}"}]
            )
        )
        out.append(ToolMessage(f"out {i}", tool_call_id=f"c{i}", name="bash"))
    return out


def test_create_model_builds_the_fast_client():
    model = create_model("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert isinstance(model, CairnChatOpenAI) and isinstance(model, ChatOpenAI)
    assert type(model.root_client) is OrjsonOpenAI


def test_body_matches_stock_chat_openai_and_transform_work_does_not_grow(monkeypatch):
    """Same JSON as the stock client, and the SDK's typed transform no longer visits messages."""
    visits = []
    original = sdk_transform._transform_recursive

    def counting(data, *args, **kwargs):
        visits.append(1)
        return original(data, *args, **kwargs)

    monkeypatch.setattr(sdk_transform, "_transform_recursive", counting)
    with openai_server([{"content": "a"}] * 50) as server:
        common = {"model": "m", "base_url": server.base_url, "api_key": "k", "max_retries": 0}
        stock = ChatOpenAI(**common, stream_usage=True).bind_tools([TOOL])
        fast = create_model("m", base_url=server.base_url, api_key="k", max_retries=0).bind_tools([TOOL])
        counts = []
        for turns in (1, 40):
            history = _history(turns)
            visits.clear()
            reply = "".join(c.text for c in fast.stream(history))
            counts.append(len(visits))
            list(stock.stream(history))
            stock_body, fast_body = server.requests[-1], server.requests[-2]
            assert fast_body == stock_body
            assert len(fast_body["messages"]) == len(history) and fast_body["tools"] == [TOOL]
            assert reply  # the streamed answer came back through the normal path
    assert counts[0] == counts[1]  # independent of how many messages were sent


def test_tool_call_deltas_usage_and_retries_survive():
    turns = [
        {"content": "calling", "tool_calls": [{"name": "bash", "args": {"command": "ls -la"}, "id": "t1"}]}
    ]
    with openai_server([{**turns[0], "http_error": 503, "times": 2}]) as server:
        model = create_model("m", base_url=server.base_url, api_key="k", max_retries=3).bind_tools([TOOL])
        full = None
        for chunk in model.stream([HumanMessage("go")]):
            full = chunk if full is None else full + chunk
        assert len(server.requests) == 3  # two 503s retried by the SDK, then the answer
        assert full.tool_calls == [
            {"name": "bash", "args": {"command": "ls -la"}, "id": "t1", "type": "tool_call"}
        ]
        assert full.usage_metadata and full.usage_metadata["total_tokens"] > 0


def test_errors_keep_their_openai_types():
    with openai_server([{"error": {"status": 400}}]) as server:
        model = create_model("m", base_url=server.base_url, api_key="k", max_retries=0)
        with pytest.raises(openai.BadRequestError):
            model.invoke([HumanMessage("go")])
