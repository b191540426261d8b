"""End to end through the real ChatOpenAI client against the tests' local server."""

from __future__ import annotations

from cairn import Session
from cairn.graph.models import create_model
from tests.support.fixtures import openai_server
from tests.support.openai_wire import find_dangling_tool_calls


def test_session_over_http_with_streaming_and_approval(harness):
    (harness.ws / "notes.txt").write_text("alpha\nbeta\n")
    turns = [
        {
            "content": "Reading.",
            "tool_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "r1"},
                {"name": "gated_effect", "args": {"label": "g"}, "id": "g1"},
            ],
        },
        {"content": "All done: notes has 2 lines."},
    ]
    with openai_server(turns) as server:
        model = create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)
        s = Session(harness.ws, model=model, db=harness.db, tools=harness.tools())
        tokens: list[str] = []
        r = s.send(
            "summarize", stream=True, on_event=lambda k, p: tokens.append(p["text"]) if k == "token" else None
        )
        assert r.status == "awaiting_approval"
        assert "".join(tokens) == "Reading."
        r = s.approve()
        assert r.status == "done" and r.text == "All done: notes has 2 lines."
        assert harness.runs() == ["g"]
        assert len(server.requests) == 2
        for body in server.requests:
            assert find_dangling_tool_calls(body) == []
        # the second request carries both tool results, in order
        tool_msgs = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
        assert [m["tool_call_id"] for m in tool_msgs] == ["r1", "g1"]
        assert "alpha" in tool_msgs[0]["content"]
        s.close()


def test_persistent_server_error_is_a_resumable_pause(harness):
    turns = [{"http_error": 500, "times": 99}]
    with openai_server(turns) as server:
        model = create_model("test-model", base_url=server.base_url, api_key="k", max_retries=1)
        s = Session(harness.ws, model=model, db=harness.db)
        r = s.send("hello")
        assert r.status == "error" and "500" in (r.error or "")
        s.close()
    with openai_server([{"content": "back"}]) as server:
        model = create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)
        s = Session.resume(r.session_id, db=harness.db, model=model)
        r2 = s.continue_()
        assert r2.status == "done" and r2.text == "back"
        s.close()


def test_no_request_ever_carries_a_dangling_tool_call(harness):
    """Rejections, a stopped call, a cancel and a resume in a new Session: every request the
    model receives answers every earlier tool call exactly once."""
    import threading

    from tests.support.openai_wire import find_orphan_tool_messages

    turns = [
        {
            "tool_calls": [
                {"name": "gated_effect", "args": {"label": "r"}, "id": "c1"},
                {"name": "effect", "args": {"label": "ok"}, "id": "c2"},
            ]
        },
        {"tool_calls": [{"name": "effect", "args": {"label": "slow", "seconds": 30}, "id": "c3"}]},
        {"tool_calls": [{"name": "gated_effect", "args": {"label": "later"}, "id": "c4"}]},
        {"content": "finished"},
    ]
    with openai_server(turns) as server:
        model = create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)
        s = Session(harness.ws, model=model, db=harness.db, tools=harness.tools())
        assert s.send("go").status == "awaiting_approval"

        def stop_soon(kind, payload):
            if kind == "tool_start" and payload["call"]["call_id"] == "c3":
                threading.Timer(0.2, s.stop).start()

        r = s.reject("c1", "not now", on_event=stop_soon)
        assert r.status == "interrupted"
        s.close()
        again = Session.resume(s.id, db=harness.db, model=model, tools=harness.tools())
        r = again.cancel()
        assert r.status == "awaiting_approval"
        r = again.approve()
        assert r.status == "done" and r.text == "finished"
        again.close()
        assert len(server.requests) == 4
        for body in server.requests:
            assert find_dangling_tool_calls(body) == []
            assert find_orphan_tool_messages(body) == []


def test_the_web_guard_stops_a_redirect_to_another_host_and_refuses_internal_ones(harness):
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    s = Session(harness.ws, model=ScriptedChatModel.from_turns([{"content": "x"}]), db=harness.db)
    assert s.core.url_guard("http://127.0.0.1:8080/admin").startswith("deny:")
    assert s.core.url_guard("http://169.254.169.254/latest/meta-data").startswith("deny:")
    assert s.core.url_guard("file:///etc/passwd").startswith("deny:")
    s.close()
    allowed = Session(
        harness.ws,
        model=ScriptedChatModel.from_turns([{"content": "x"}]),
        db=harness.db,
        rules={"allow": ["web_fetch(domain:docs.python.org)"]},
    )
    import cairn.policy.urls as urls

    original = urls.system_resolver
    urls.system_resolver = lambda host: ["151.101.0.223"]
    try:
        assert allowed.core.url_guard("https://docs.python.org/3/") is None
        assert allowed.core.url_guard("https://elsewhere.example/").startswith("ask:")
    finally:
        urls.system_resolver = original
        allowed.close()
