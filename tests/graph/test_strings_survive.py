"""Any string survives a session: lone surrogates in the model's content and arguments (through
the real ChatOpenAI client and the tests' local server), undecodable bytes and NUL in prompts
(API, argv and stdin of ``cairn -p``), and a call awaiting approval whose arguments name a file
that is not UTF-8.  After each, the session resumes, continues and takes new messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models import create_model
from tests.support.fixtures import openai_server

ROOT = Path(__file__).resolve().parents[2]
BAD = b"bad\xff.txt".decode("utf-8", "surrogateescape")  # 'bad\udcff.txt': how Python names it
SAID = "Reading \ud800 and caf\udce9."  # a lone high surrogate and an escaped Latin-1 byte


def _model(server):
    return create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)


def _sent_text(body: dict) -> str:
    """Every message's text content of a request, as the server received it."""
    return "\n".join(m["content"] for m in body["messages"] if isinstance(m.get("content"), str))


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "invoke"])
def test_lone_surrogates_in_content_and_arguments(tmp_path, db_location, stream):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / os.fsencode(BAD).decode("utf-8", "surrogateescape")).write_text("one line\n")
    turns = [
        {"content": SAID, "tool_calls": [{"name": "read_file", "args": {"file_path": BAD}, "id": "r1"}]},
        {"content": f"{BAD} holds one line \udce9"},
        {"content": "still here"},
    ]
    with openai_server(turns) as server:
        s = Session(ws, model=_model(server), db=db_location)
        r = s.send("read it", stream=stream)
        assert r.status == "done", r.error
        assert r.text == f"{BAD} holds one line \udce9"  # kept exactly in the transcript
        [call] = r.tool_calls
        assert call.status == "success" and call.arguments == {"file_path": BAD}
        # the model was sent its own words and the tool's output, escaped where not UTF-8
        second = server.requests[1]
        assert "Reading \\ud800 and caf\\xe9." in _sent_text(second)
        assert "one line" in _sent_text(second)
        s.close()
        again = Session.resume(r.session_id, db=db_location, model=_model(server))
        assert [m.content for m in again.history()][1] == SAID
        assert again.continue_().status == "done"
        r2 = again.send("anything else?", stream=stream)
        assert r2.status == "done" and r2.text == "still here"
        again.close()


def test_prompt_with_undecodable_bytes_and_nul(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    prompt = "caf\udce9 \x00 and \ud83d"
    with openai_server([{"content": "ok"}, {"content": "ok again"}]) as server:
        s = Session(ws, model=_model(server), db=db_location)
        r = s.send(prompt)
        assert r.status == "done" and r.text == "ok"
        assert "caf\\xe9 \\x00 and \\ud83d" in _sent_text(server.requests[0])
        assert s.history()[0].content == prompt
        assert Session.list(db=db_location)[0]["title"] == "caf\\xe9 \\x00 and \\ud83d"
        assert s.send("next").text == "ok again"
        s.close()


def test_a_call_awaiting_approval_keeps_an_undecodable_name(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    new_name = b"new\xfe.txt".decode("utf-8", "surrogateescape")
    turns = [
        {
            "tool_calls": [
                {"name": "write_file", "args": {"file_path": new_name, "content": "hi\n"}, "id": "w1"}
            ]
        },
        {"content": "written"},
    ]
    with openai_server(turns) as server:
        s = Session(ws, model=_model(server), db=db_location)
        r = s.send("write it")
        assert r.status == "awaiting_approval"
        s.close()
        again = Session.resume(r.session_id, db=db_location, model=_model(server))
        [pending] = again.pending()
        assert pending.arguments["file_path"] == new_name  # not 'new?.txt' (LangGraph's serializer)
        r2 = again.approve()
        assert r2.status == "done" and r2.text == "written"
        assert (ws / os.fsdecode(b"new\xfe.txt")).read_bytes() == b"hi\n"
        again.close()


def _cairn(args: list[bytes], *, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C.UTF-8"}
    cmd = [os.fsencode(sys.executable), b"-m", b"cairn.graph.apps.cli", *args]
    return subprocess.run(cmd, cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=120)


@pytest.mark.parametrize("via", ["argv", "stdin"])
def test_cairn_p_with_a_latin1_prompt(tmp_path, db_location, via):
    ws = tmp_path / "ws"
    ws.mkdir()
    with openai_server([{"content": "vu"}, {"content": "encore"}]) as server:
        common = [
            b"--base-url",
            server.base_url.encode(),
            b"--model",
            b"test-model",
            b"--db",
            db_location.encode(),
        ]
        common += [b"-C", os.fsencode(ws), b"--output-format", b"json"]
        latin1 = "café crème".encode("latin-1")
        if via == "argv":
            out = _cairn([b"-p", latin1, *common])
        else:
            out = _cairn([b"-p", *common], stdin=latin1 + b"\n")
        assert out.returncode == 0, out.stderr.decode(errors="replace")
        result = json.loads(out.stdout.decode("utf-8").strip().splitlines()[-1])
        assert result["status"] == "done" and result["result"] == "vu"
        assert "caf\\xe9 cr\\xe8me" in _sent_text(server.requests[0])
        more = _cairn([b"resume", result["session_id"].encode(), b"-p", b"more", *common])
        assert more.returncode == 0, more.stderr.decode(errors="replace")
        assert json.loads(more.stdout.decode().strip().splitlines()[-1])["result"] == "encore"
    sessions = Session.list(db=db_location)
    assert [x["status"] for x in sessions] == ["done"]  # one session, no empty one beside it


def test_a_failed_start_leaves_no_empty_session(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    s = Session(ws, model="gpt-4o-mini", db=db_location)  # no key, no endpoint: cannot be built
    with pytest.raises(ValueError, match="No model endpoint"):
        s.send("hello")
    with pytest.raises(ValueError, match="empty"):
        s.send("   ")
    assert Session.list(db=db_location) == []
    s.core._model = create_model("script:" + str(_script(tmp_path, [{"content": "fine"}])))
    assert s.send("hello").text == "fine"  # the same Session starts properly afterwards
    assert [x["status"] for x in Session.list(db=db_location)] == ["done"]
    s.close()


def _script(tmp_path: Path, turns: list) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return path
