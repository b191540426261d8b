"""The server's window, whatever the model's name (issue 31, item 4): through the real ChatOpenAI
client against the local test server.  llama.cpp serves one model under any name (docs/models.md
runs cairn with ``--model any``); the window it was started with is in ``/props``, its ``/models``
meta only has the trained length."""

from __future__ import annotations

import json

from cairn import Session
from cairn.graph.apps.cli import main
from cairn.graph.core.profiles import LEAN_TOOLS
from cairn.graph.models import create_model
from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

SCRIPT = [
    {"tool_calls": [{"name": "read_file", "args": {"file_path": "a.py"}, "id": "c1"}]},
    {"content": "x is 1"},
]


def session(server, tmp_path, name: str = "any") -> Session:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "a.py").write_text("x = 1\n")
    return Session(ws, model=create_model(name, base_url=server.base_url), db=":memory:")


def tool_names(body: dict) -> list[str]:
    return sorted(t["function"]["name"] for t in body["tools"])


def test_a_name_not_in_models_uses_the_only_listed_model_and_goes_lean(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server(SCRIPT, model_info={"max_model_len": 8192})
    s = session(server, tmp_path)
    try:
        result = s.send("what is x in a.py?")
        assert result.status == "done" and result.text == "x is 1"
        assert s.context_window == 8192 and s.core.tool_profile == "lean"
    finally:
        s.close()
    assert server.requests[0]["model"] == "any"
    assert tool_names(server.requests[0]) == sorted(LEAN_TOOLS)


def test_llama_cpp_props_n_ctx_beats_the_trained_length(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server(
        SCRIPT,
        model_info={"meta": {"n_ctx_train": 32768}},
        props={"default_generation_settings": {"n_ctx": 8192}},
    )
    s = session(server, tmp_path, "qwen2.5-coder-1.5b")
    try:
        assert s.send("what is x?").status == "done"
        assert s.context_window == 8192 and s.core.tool_profile == "lean"
    finally:
        s.close()
    assert tool_names(server.requests[0]) == sorted(LEAN_TOOLS)


def test_without_props_the_trained_length_is_the_last_resort(make_openai_server, tmp_path):  # noqa: F811
    server = make_openai_server(SCRIPT, model_info={"meta": {"n_ctx_train": 32768}})
    s = session(server, tmp_path)
    try:
        assert s.context_window == 32768 and s.core.tool_profile == "full"
    finally:
        s.close()


def test_models_check_says_which_window_and_profile_and_why(make_openai_server, capsys):  # noqa: F811
    server = make_openai_server(
        [{"tool_calls": [{"name": "ping", "args": {"text": "hello"}, "id": "p"}]}], props={"n_ctx": 4096}
    )
    code = main(["models", "check", "--base-url", server.base_url, "--model", "any"])
    out = capsys.readouterr().out
    assert code == 0
    assert "NOT listed" in out
    assert "context      4,096 tokens  (from llama.cpp /props n_ctx)" in out
    assert "cairn will use the lean tool profile (small context window): 4,096 tokens <= 16,384" in out

    single = make_openai_server(
        [{"tool_calls": [{"name": "ping", "args": {"text": "x"}, "id": "p"}]}],
        model_info={"max_model_len": 131072},
    )
    code = main(["models", "check", "--base-url", single.base_url, "--model", "any", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["context_window"] == 131072 and report["profile"] == "full"
    assert "lists one model (scripted)" in report["window_source"]
