"""Arguments checked before a person is asked (issue 31, item 5): through the real ChatOpenAI
client against the local test server, an edit that cannot succeed is answered at once with the
reason, without an approval prompt; one that can is still put to the person."""

from __future__ import annotations

from cairn import Session
from cairn.graph.models import create_model
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)


def edit(cid: str, path: str, old: str, new: str) -> dict:
    args = {"file_path": path, "old_string": old, "new_string": new}
    return {"tool_calls": [{"name": "edit_file", "args": args, "id": cid}]}


def tool_messages(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def open_session(server, tmp_path) -> Session:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    return Session(ws, model=create_model("scripted", base_url=server.base_url), db=":memory:")


def test_an_identical_text_edit_fails_fast_without_asking(make_openai_server, tmp_path):  # noqa: F811
    read = {"tool_calls": [{"name": "read_file", "args": {"file_path": "a.py"}, "id": "r1"}]}
    script = [read, edit("e1", "a.py", "x = 1", "x = 1"), {"content": "nothing to change"}]
    server = make_openai_server(script)
    s = open_session(server, tmp_path)
    try:
        result = s.send("set x to 1")
        assert result.status == "done" and not result.pending  # nobody was asked
        assert result.text == "nothing to change"
        failed = [c for c in result.tool_calls if c.tool_name == "edit_file"]
        assert failed and failed[0].status == "error"
    finally:
        s.close()
    told = tool_messages(server.requests[2])[-1]
    assert "cannot succeed" in told and "identical" in told
    assert (tmp_path / "ws" / "a.py").read_text() == "x = 1\n"


def test_an_edit_of_a_missing_file_fails_fast(make_openai_server, tmp_path):  # noqa: F811
    script = [edit("e1", "nope.py", "x = 1", "x = 2"), {"content": "no such file"}]
    server = make_openai_server(script)
    s = open_session(server, tmp_path)
    try:
        result = s.send("fix nope.py")
        assert result.status == "done" and not result.pending
    finally:
        s.close()
    assert "File not found: nope.py" in tool_messages(server.requests[1])[-1]


def test_an_edit_that_can_succeed_is_still_asked_about(make_openai_server, tmp_path):  # noqa: F811
    read = {"tool_calls": [{"name": "read_file", "args": {"file_path": "a.py"}, "id": "r1"}]}
    server = make_openai_server([read, edit("e1", "a.py", "x = 1", "x = 2"), {"content": "ok"}])
    s = open_session(server, tmp_path)
    try:
        result = s.send("set x to 2")
        assert result.status == "awaiting_approval"
        assert [c.tool_name for c in result.pending] == ["edit_file"]
    finally:
        s.close()
