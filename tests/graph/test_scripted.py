"""ScriptedChatModel: deterministic replay, streaming, usage, injected failures, script validation."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph

from cairn.graph.models import is_transient_model_error
from cairn.graph.models.script import END_OF_SCRIPT, split_tokens
from cairn.graph.models.scripted import ScriptedChatModel, ScriptedModelError

TURNS = [
    {
        "content": "Let me look at the file.",
        "tool_calls": [
            {"name": "read_file", "args": {"path": "a.py"}, "id": "c1"},
            {"name": "grep", "args": {"pattern": "TODO"}},
        ],
    },
    {"content": "All done here."},
]


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


def aggregate(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def after_first_turn(first: AIMessage) -> list:
    return [
        HumanMessage("fix it"),
        first,
        ToolMessage("x = 1", tool_call_id="c1"),
        ToolMessage("no match", tool_call_id=first.tool_calls[1]["id"]),
    ]


def test_invoke_replays_turns_chosen_by_the_number_of_ai_messages():
    model = ScriptedChatModel.from_turns(TURNS)
    first = model.invoke([HumanMessage("fix it")])
    assert first.content == "Let me look at the file."
    assert [(c["name"], c["args"], c["id"]) for c in first.tool_calls] == [
        ("read_file", {"path": "a.py"}, "c1"),
        ("grep", {"pattern": "TODO"}, "call_t0_1"),  # generated ids are deterministic
    ]
    assert first.response_metadata["finish_reason"] == "tool_calls"
    # A fresh instance (think: a new process) answers from the transcript alone.
    second = ScriptedChatModel.from_turns(TURNS).invoke(after_first_turn(first))
    assert second.content == "All done here." and second.tool_calls == []
    # Asking again with the same transcript gives the same turn again (no hidden cursor).
    assert model.invoke([HumanMessage("fix it")]).content == first.content


def test_past_the_end_of_the_script_answers_end_of_script():
    model = ScriptedChatModel.from_turns([])
    assert model.invoke("hi").content == END_OF_SCRIPT
    history = [HumanMessage("a"), AIMessage("b"), HumanMessage("c"), AIMessage("d")]
    assert ScriptedChatModel.from_turns(["only one"]).invoke(history).content == END_OF_SCRIPT


def test_accepts_turns_object_bare_list_and_string_shorthand():
    a = ScriptedChatModel.from_turns({"turns": [{"content": "hi"}]})
    b = ScriptedChatModel.from_turns(["hi"])
    c = ScriptedChatModel(turns=[{"content": "hi"}])
    assert a.invoke("x").content == b.invoke("x").content == c.invoke("x").content == "hi"


def test_usage_metadata_is_deterministic_word_counts():
    model = ScriptedChatModel.from_turns([{"content": "one two three"}])
    usage = model.invoke([HumanMessage("four five")]).usage_metadata
    assert usage == {"input_tokens": 2, "output_tokens": 3, "total_tokens": 5}
    tool_turn = ScriptedChatModel.from_turns(TURNS).invoke("go").usage_metadata
    assert tool_turn["output_tokens"] > 5  # text words plus the calls


def test_stream_yields_tokens_then_tool_calls_in_the_last_chunk():
    model = ScriptedChatModel.from_turns(TURNS)
    chunks = list(model.stream([HumanMessage("fix it")]))
    texts = [c.content for c in chunks[:-1]]
    assert texts == ["Let ", "me ", "look ", "at ", "the ", "file."]
    assert all(not c.tool_call_chunks for c in chunks[:-1])
    last = chunks[-1]
    assert last.chunk_position == "last" and len(last.tool_call_chunks) == 2
    streamed, invoked = aggregate(chunks), model.invoke([HumanMessage("fix it")])
    assert streamed.content == invoked.content
    assert streamed.tool_calls == invoked.tool_calls
    assert streamed.usage_metadata == invoked.usage_metadata


def test_content_given_as_a_list_streams_those_exact_chunks():
    model = ScriptedChatModel.from_turns([{"content": ["Hel", "lo, wor", "ld"]}])
    chunks = list(model.stream("hi"))
    assert [c.content for c in chunks] == ["Hel", "lo, wor", "ld", ""]
    assert model.invoke("hi").content == "Hello, world"


def test_split_tokens_round_trips_text():
    for text in ["", "  lead", "a  b\n\nc ", "tail   "]:
        assert "".join(split_tokens(text)) == text


def test_bind_tools_keeps_replaying_the_script():
    bound = ScriptedChatModel.from_turns(TURNS).bind_tools([read_file], tool_choice="auto")
    reply = bound.invoke("go")
    assert reply.tool_calls[0]["name"] == "read_file"
    assert bound.kwargs["tools"][0]["function"]["name"] == "read_file"


def test_raw_args_produce_invalid_tool_calls_streamed_or_not():
    model = ScriptedChatModel.from_turns([{"tool_calls": [{"name": "read_file", "raw_args": "not json"}]}])
    reply = model.invoke("go")
    assert reply.tool_calls == [] and reply.invalid_tool_calls[0]["args"] == "not json"
    streamed = aggregate(list(model.stream("go")))
    assert streamed.tool_calls == [] and streamed.invalid_tool_calls[0]["name"] == "read_file"


def test_error_turn_raises_every_time_with_its_status():
    model = ScriptedChatModel.from_turns([{"error": {"status": 503, "message": "overloaded"}}])
    for _ in range(2):
        with pytest.raises(ScriptedModelError) as info:
            model.invoke("hi")
        assert info.value.status_code == 503 and "overloaded" in str(info.value)
    assert is_transient_model_error(info.value)


def test_http_error_fails_n_times_then_answers():
    model = ScriptedChatModel.from_turns([{"content": "ok", "http_error": 429, "times": 2}])
    bound = model.bind_tools([read_file])  # the count is shared with the bound runnable
    for _ in range(2):
        with pytest.raises(ScriptedModelError, match="429"):
            bound.invoke("hi")
    assert bound.invoke("hi").content == "ok"
    assert aggregate(list(model.stream("hi"))).content == "ok"


def test_sleep_delays_the_answer():
    model = ScriptedChatModel.from_turns([{"content": "late", "sleep": 0.2}])
    start = time.perf_counter()
    assert model.invoke("hi").content == "late"
    assert time.perf_counter() - start >= 0.2


def test_async_invoke_and_stream():
    model = ScriptedChatModel.from_turns(TURNS)

    async def run() -> tuple[AIMessage, list[AIMessageChunk]]:
        return await model.ainvoke("go"), [c async for c in model.astream("go")]

    reply, chunks = asyncio.run(run())
    assert reply.tool_calls[0]["id"] == "c1"
    assert aggregate(chunks).content == reply.content


def test_streams_tokens_through_a_langgraph_graph():
    model = ScriptedChatModel.from_turns([{"content": "streamed through the graph"}])
    builder = StateGraph(MessagesState)
    builder.add_node("reasoning", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_edge(START, "reasoning")
    graph = builder.compile()
    tokens = [
        chunk.content
        for chunk, _meta in graph.stream({"messages": [HumanMessage("hi")]}, stream_mode="messages")
        if isinstance(chunk, AIMessageChunk) and chunk.content
    ]
    assert tokens == ["streamed ", "through ", "the ", "graph"]


def test_from_file_reads_and_validates(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": TURNS}))
    model = ScriptedChatModel.from_file(path)
    assert model.source == str(path) and len(model.turns) == 2
    assert model.invoke("go").tool_calls[0]["args"] == {"path": "a.py"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"steps": []}', "expected {'turns'"),
        ('[{"contnet": "typo"}]', "unknown keys ['contnet']"),
        ('[{"tool_calls": [{"args": {}}]}]', "string 'name'"),
        ('[{"content": 3}]', "'content' must be"),
        ('[{"tool_calls": [{"name": "x", "args": [1]}]}]', "'args' must be an object"),
    ],
)
def test_malformed_scripts_are_rejected_with_the_file_and_reason(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"bad\.json") as info:
        ScriptedChatModel.from_file(path)
    assert message in str(info.value)


def test_missing_script_file_is_a_clear_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read script"):
        ScriptedChatModel.from_file(tmp_path / "nope.json")
