"""What small local models get: through the real ChatOpenAI client against the local test server,
the lean profile's requests carry only its six tools with short schemas; the system message and
tools are byte-identical across turns and across sessions (the prefix a server can cache), and
the session's workspace, date and notes ride at the top of the first user message."""

from __future__ import annotations

import json

import pytest

from cairn import Session
from cairn.graph.core.profiles import LEAN_TOOLS
from cairn.graph.models import create_model
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("db_location")  # each test on SQLite and PostgreSQL (CAIRN_DB)


def read(cid: str, path: str = "a.py") -> dict:
    return {"tool_calls": [{"name": "read_file", "args": {"file_path": path}, "id": cid}]}


def run(server, tmp_path, name: str, profile: str | None = None) -> Session:
    ws = tmp_path / name
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    (ws / "b.py").write_text("y = 2\n")
    s = Session(
        ws,
        model=create_model("scripted", base_url=server.base_url),
        tool_profile=profile,
    )
    r = s.send("read the files")
    assert r.status == "done", r.error
    return s


def prefix(body: dict) -> str:
    return json.dumps([body["messages"][0], body.get("tools")], sort_keys=True)


def test_the_lean_profile_binds_only_the_core_tools_with_short_schemas(make_openai_server, tmp_path):  # noqa: F811
    script = [read("c1"), {"content": "x is 1"}]
    lean_server = make_openai_server(script)
    run(lean_server, tmp_path, "lean", "lean").close()
    full_server = make_openai_server(script)
    run(full_server, tmp_path, "full", "full").close()
    lean, full = lean_server.requests[0], full_server.requests[0]
    assert sorted(t["function"]["name"] for t in lean["tools"]) == sorted(LEAN_TOOLS)
    assert len(full["tools"]) > len(lean["tools"]) and "web_fetch" in [
        t["function"]["name"] for t in full["tools"]
    ]
    for tool in lean["tools"]:
        assert "\n\n" not in tool["function"]["description"]
    lean_size = len(json.dumps([lean["messages"][0], lean["tools"]]))
    full_size = len(json.dumps([full["messages"][0], full["tools"]]))
    assert lean_size < full_size / 3, (lean_size, full_size)


def test_the_prefix_is_identical_across_turns_and_sessions(make_openai_server, tmp_path):  # noqa: F811
    script = [read("c1"), read("c2", "b.py"), read("c3"), {"content": "done"}]
    server = make_openai_server(script)
    first = run(server, tmp_path, "one")
    stored_first_message = first.history()[0].content
    first.close()
    second = run(server, tmp_path, "two")
    second.close()
    bodies = server.requests
    assert len(bodies) == 8
    assert len({prefix(b) for b in bodies}) == 1  # system message + tools: byte-identical everywhere
    system = bodies[0]["messages"][0]["content"]
    assert "Workspace:" not in system and "Date:" not in system
    user_one, user_two = bodies[0]["messages"][1]["content"], bodies[4]["messages"][1]["content"]
    # (issue 31) the person's text first, the context after it: small models echoed it when on top
    assert user_one.startswith("read the files\n\n<session-context>") and str(tmp_path / "one") in user_one
    assert str(tmp_path / "two") in user_two and user_one.endswith("</session-context>")
    # the context is sent, never stored
    assert stored_first_message == "read the files"


def test_auto_picks_lean_from_the_window_llama_cpp_reports(make_openai_server, tmp_path):  # noqa: F811
    """No flag and no --context-window: the served window in ``/models`` decides (llama.cpp puts
    its ``-c`` in ``meta.n_ctx``, beside the larger ``n_ctx_train``), on first use."""
    script = [read("c1"), {"content": "x is 1"}]
    small = make_openai_server(script, model_info={"meta": {"n_ctx": 16384, "n_ctx_train": 32768}})
    session = run(small, tmp_path, "small")
    assert session.core.tool_profile == "lean"
    session.close()
    big = make_openai_server(script, model_info={"max_model_len": 131072})
    run(big, tmp_path, "big").close()
    assert sorted(t["function"]["name"] for t in small.requests[0]["tools"]) == sorted(LEAN_TOOLS)
    assert all(len(r["tools"]) == len(small.requests[0]["tools"]) for r in small.requests)
    assert len(big.requests[0]["tools"]) > len(LEAN_TOOLS)


def test_the_lean_profile_sends_no_workspace_path(make_openai_server, tmp_path):  # noqa: F811
    """Issue 31: the 1.5B model built invented paths on the absolute workspace path
    (``/tmp/…/ws/src/parser/mod.rs``) and echoed the environment section as its reply."""
    script = [read("c1"), {"content": "x is 1"}]
    server = make_openai_server(script)
    run(server, tmp_path, "bare", "lean").close()
    noted_ws = tmp_path / "noted"
    noted_ws.mkdir()
    (noted_ws / "a.py").write_text("x = 1\n")
    (noted_ws / "AGENTS.md").write_text("Run tests with make test.\n")
    s = Session(noted_ws, model=create_model("scripted", base_url=server.base_url), tool_profile="lean")
    assert s.send("read the files").status == "done"
    s.close()
    bare, noted = server.requests[0]["messages"], server.requests[2]["messages"]
    assert bare[1]["content"] == "read the files"  # nothing else to say: no block at all
    assert str(tmp_path) not in json.dumps(bare) and "Date:" not in json.dumps(bare)
    assert "Run tests with make test." in noted[1]["content"] and str(tmp_path) not in json.dumps(noted)
