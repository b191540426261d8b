"""Deferred tools: with many tools only the core set is bound until tool_search activates more.

Asserted on the requests the local OpenAI-compatible server received (real ChatOpenAI client).
"""

from __future__ import annotations

import pytest

from cairn import Session
from cairn.graph.core.tool_selection import CORE_TOOLS
from cairn.graph.models import create_model
from tests.extensions.conftest import stdio_server
from tests.support.fixtures import openai_server

# The built-ins + 5 test tools + 20 extra_NN: well over the deferral threshold.
MANY = ("--many", "20")


def bound(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


def model_for(server):
    return create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)


@pytest.mark.slow
def test_tool_search_activates_a_tool_for_the_next_request_and_after_restart(workspace, marks, db_location):
    db = db_location
    turns = [
        {"tool_calls": [{"name": "tool_search", "args": {"query": "select:mcp__t__extra_07"}, "id": "s1"}]},
        {"tool_calls": [{"name": "mcp__t__extra_07", "args": {"query": "bolts"}, "id": "x1"}]},
        {"content": "found it"},
    ]
    servers = {"t": stdio_server(marks, *MANY)}
    with openai_server(turns) as server:
        s = Session(workspace, model=model_for(server), db=db, mcp_servers=servers)
        try:
            r = s.send("look up bolts")
            assert r.status == "done", r.error
            assert sum(name.startswith("mcp__t__") for name in s.core.registry.names) == 25
            first, second, third = server.requests
            assert set(bound(first)) == CORE_TOOLS - {"read_skill"}
            assert "mcp__t__extra_07" not in bound(first)
            assert "mcp__t__extra_07" in bound(second) and "mcp__t__extra_08" not in bound(second)
            assert "mcp__t__extra_07" in bound(third)
            # the session context (top of the first user message) names what can be loaded;
            # the system prompt stays constant
            system, user = first["messages"][0]["content"], first["messages"][1]["content"]
            assert "mcp__t__extra_19" not in system
            assert "tool_search" in user and "mcp__t__extra_19" in user
            tool_msgs = [m for m in third["messages"] if m["role"] == "tool"]
            assert tool_msgs[-1]["content"] == "extra 7: bolts"
            assert s.state["activated_tools"] == ["mcp__t__extra_07"]
            sid = s.id
        finally:
            s.close()
    # A restarted process keeps the activation (checkpointed state)...
    with openai_server([{"content": "a"}, {"content": "b"}, {"content": "c"}, {"content": "d"}]) as server:
        s = Session.resume(sid, db=db, model=model_for(server), mcp_servers=servers)
        try:
            assert s.send("again").status == "done"
            assert "mcp__t__extra_07" in bound(server.requests[-1])
        finally:
            s.close()
        # ... and a new session starts without it.
        fresh = Session(workspace, model=model_for(server), db=db, mcp_servers=servers)
        try:
            assert fresh.send("new").status == "done"
            assert "mcp__t__extra_07" not in bound(server.requests[-1])
        finally:
            fresh.close()


@pytest.mark.slow
def test_calling_a_deferred_tool_directly_activates_it_with_a_note(workspace, marks):
    turns = [
        {"tool_calls": [{"name": "mcp__t__extra_03", "args": {"query": "nuts"}, "id": "x1"}]},
        {"content": "ok"},
    ]
    with openai_server(turns) as server:
        s = Session(
            workspace, model=model_for(server), db=":memory:", mcp_servers={"t": stdio_server(marks, *MANY)}
        )
        try:
            assert s.send("go").status == "done"
            first, second = server.requests
            assert "mcp__t__extra_03" not in bound(first)
            assert "mcp__t__extra_03" in bound(second)
            tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
            assert tool_msg["content"].startswith(
                "Note: mcp__t__extra_03 was not loaded; it is now activated"
            )
            assert tool_msg["content"].endswith("extra 3: nuts")
        finally:
            s.close()


def test_a_low_threshold_defers_built_ins_until_tool_search_loads_them(workspace):
    turns = [
        {"tool_calls": [{"name": "tool_search", "args": {"query": "list directory"}, "id": "s1"}]},
        {"tool_calls": [{"name": "ls", "args": {"path": "."}, "id": "l1"}]},
        {"content": "listed"},
    ]
    with openai_server(turns) as server:
        s = Session(workspace, model=model_for(server), db=":memory:", defer_threshold=3)
        try:
            assert s.send("list").status == "done"
            first, second, third = server.requests
            assert set(bound(first)) == CORE_TOOLS - {"read_skill"}
            assert "ls" in bound(second) and "ls" in bound(third)
            assert "web_fetch" not in bound(third)
            search = next(m for m in second["messages"] if m["role"] == "tool")
            assert search["content"].startswith("Loaded") and "- ls:" in search["content"]
            assert not next(
                m for m in third["messages"] if m["role"] == "tool" and m["tool_call_id"] == "l1"
            )["content"].startswith("Note:")
        finally:
            s.close()


def test_few_tools_are_all_bound_and_tool_search_is_not(workspace):
    with openai_server([{"content": "hi"}]) as server:
        s = Session(workspace, model=model_for(server), db=":memory:")
        try:
            s.send("hello")
            names = bound(server.requests[0])
            assert "tool_search" not in names
            assert {"ls", "todo_write", "memory", "save_memory", "web_fetch"} <= set(names)
        finally:
            s.close()


@pytest.mark.slow
def test_tool_search_ranks_by_name_hint_and_description(workspace, marks):
    from cairn.tools.tool_search import rank_tools

    s = Session(
        workspace, model="script:/dev/null", db=":memory:", mcp_servers={"t": stdio_server(marks, *MANY)}
    )
    try:
        s.core.load_extension_tools()
        tools = list(s.core.registry)
        assert rank_tools(tools, "catalogue section 12", 3)[0].name == "mcp__t__extra_12"
        assert rank_tools(tools, "echo", 1)[0].name == "mcp__t__echo"
        assert rank_tools(tools, "save a project fact", 1)[0].name == "save_memory"
        assert rank_tools(tools, "zzzz qqqq", 5) == []
    finally:
        s.close()
