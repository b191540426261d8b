"""Issue 31: with the lean profile, a run whose request names files in the workspace starts with
cairn reading them, through the real ChatOpenAI client against the local test server."""

from __future__ import annotations

import pytest

from cairn import Session
from cairn.graph.core.named_reads import MAX_BYTES, SOURCE, named_files
from cairn.graph.models import create_model
from cairn.tools.workspace import Workspace
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

LEAN = {"max_model_len": 8192}


def workspace(tmp_path):
    ws = tmp_path / "ws"
    (ws / "config").mkdir(parents=True)
    (ws / "config" / "db.ini").write_text("[primary]\nport = 5433\n")
    (ws / "settings.toml").write_text("max_retries = 7\n")
    (ws / "app" / "util").mkdir(parents=True)
    (ws / "app" / "util" / "timeparse.py").write_text("def parse_duration(text):\n    return 1\n")
    for where in ("a", "b"):
        (ws / where).mkdir()
        (ws / where / "twice.py").write_text("x = 1\n")
    (ws / ".hidden").mkdir()
    (ws / ".hidden" / "notes.txt").write_text("secret\n")
    (ws / "big.log").write_text("x" * (MAX_BYTES + 1))
    return ws


def test_the_first_reply_sees_the_files_the_request_names(make_openai_server, tmp_path):  # noqa: F811
    ws = workspace(tmp_path)
    server = make_openai_server([{"content": "7"}], model_info=LEAN, sequential=True)
    s = Session(ws, model=create_model("any", base_url=server.base_url), db=":memory:")
    try:
        result = s.send("What is max_retries in settings.toml? Answer with the number.")
        history = s.history()
    finally:
        s.close()
    assert result.status == "done" and result.text == "7"
    assert [(c.tool_name, c.arguments, c.status) for c in result.tool_calls] == [
        ("read_file", {"file_path": "settings.toml"}, "success")
    ]
    assert len(server.requests) == 1  # the model was asked once, with the file already read
    sent = server.requests[0]["messages"]
    assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool"]
    assert "max_retries = 7" in sent[-1]["content"]
    assert history[1].response_metadata.get("source") == SOURCE  # the turn says it was cairn's


def test_a_large_model_reads_for_itself(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server([{"content": "7"}], model_info={"max_model_len": 131072})
    s = Session(workspace(tmp_path), model=create_model("any", base_url=server.base_url), db=":memory:")
    try:
        result = s.send("What is max_retries in settings.toml?")
    finally:
        s.close()
    assert result.tool_calls == [] and [m["role"] for m in server.requests[0]["messages"]] == [
        "system",
        "user",
    ]


def test_only_a_new_request_starts_with_reads(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server(
        [{"content": "5433"}, {"content": "ok"}, {"content": "ok"}], model_info=LEAN, sequential=True
    )
    s = Session(workspace(tmp_path), model=create_model("any", base_url=server.base_url), db=":memory:")
    try:
        first = s.send("Which port, according to config/db.ini?")
        second = s.send("thanks")
    finally:
        s.close()
    assert [c.arguments["file_path"] for c in first.tool_calls] == ["config/db.ini"]
    assert second.tool_calls == []
    after_thanks = server.requests[1]["messages"]
    assert after_thanks[-1] == {"role": "user", "content": "thanks"}  # no reads before the model


@pytest.mark.parametrize(
    "request_text, expected",
    [
        ("Fix `python timeparse.py` and settings.toml", ["app/util/timeparse.py", "settings.toml"]),
        ("see ./config/db.ini, config/db.ini again", ["config/db.ini"]),
        ("create CHANGELOG.md from settings.toml", ["settings.toml"]),  # a file to create is not read
        ("compare twice.py", []),  # two files of that name: the model chooses
        ("read .hidden/notes.txt and big.log", []),  # hidden directories, large files
        ("read ../outside.txt", []),
        ("version 2.4.1 of example.com", []),
    ],
)
def test_which_names_count(tmp_path, request_text, expected):
    ws = workspace(tmp_path)
    (tmp_path / "outside.txt").write_text("no\n")
    assert named_files(request_text, Workspace(ws)) == expected


def test_a_file_the_policy_guards_is_left_to_the_model(make_openai_server, tmp_path):  # noqa: F811
    ws = workspace(tmp_path)
    (ws / "credentials.json").write_text('{"token": "fake"}\n')
    server = make_openai_server([{"content": "ok"}], model_info=LEAN, sequential=True)
    s = Session(ws, model=create_model("any", base_url=server.base_url), db=":memory:")
    try:
        result = s.send("compare credentials.json with settings.toml")
    finally:
        s.close()
    assert result.status == "done"  # nobody was asked
    assert [c.arguments["file_path"] for c in result.tool_calls] == ["settings.toml"]
