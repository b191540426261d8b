"""Finish reasons are facts: a turn cut off (``finish_reason: "length"``, a stream that ends
mid-arguments) is never executed as complete, through the real ChatOpenAI client against the
tests' local server; an empty ``choices`` list is an error after one retry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models import create_model
from cairn.graph.models.turn_end import CUT_BY_LENGTH, CUT_STREAM
from tests.support.fixtures import openai_server
from tests.support.openai_wire import find_dangling_tool_calls

#: A write_file call whose JSON stops inside the content: "line1\nli" of four lines.
PARTIAL_WRITE = '{"file_path": "out.txt", "content": "line1\\nli'


def _write_call(cid: str = "w1", raw: str = PARTIAL_WRITE) -> dict:
    return {"name": "write_file", "raw_args": raw, "id": cid}


def _session(harness, server, **kw) -> Session:
    model = create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0)
    return Session(harness.ws, model=model, db=harness.db, mode="accept-edits", **kw)


def _tool_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


@pytest.mark.parametrize(
    ("stream", "cut", "why"),
    [
        (True, {"finish_reason": "length"}, CUT_BY_LENGTH),
        (False, {"finish_reason": "length"}, CUT_BY_LENGTH),
        (True, {"cut": True}, CUT_STREAM),  # the stream ends mid-arguments, no [DONE]
    ],
    ids=["length-stream", "length-invoke", "cut-stream"],
)
def test_a_cut_tool_call_is_not_run_and_the_model_is_told(harness, stream, cut, why):
    turns = [
        {"content": "Writing.", "tool_calls": [_write_call()], **cut},
        {
            "content": "Resent smaller.",
            "tool_calls": [
                {"name": "write_file", "args": {"file_path": "out.txt", "content": "ok\n"}, "id": "w2"}
            ],
        },
        {"content": "Done."},
    ]
    with openai_server(turns) as server:
        s = _session(harness, server)
        r = s.send("write four lines", stream=stream)
        assert r.status == "done" and r.text == "Done."
        assert (harness.ws / "out.txt").read_text() == "ok\n"  # only the complete call ran
        first, resent = r.tool_calls[0], r.tool_calls[1]
        assert first.tool_name == "write_file" and first.status == "error"
        assert "cut off" in (first.error_msg or "") and why in (first.error_msg or "")
        assert resent.status == "success"
        # the model was told, in the ToolMessage answering the cut call
        told = _tool_messages(server.requests[1])
        assert len(told) == 1 and "cut off" in told[0]["content"] and "again" in told[0]["content"]
        for body in server.requests:
            assert find_dangling_tool_calls(body) == []
        # the journal (cairn show's call log) agrees
        entry = [e for e in s.store.journal.entries(s.id) if e.status == "error"]
        assert len(entry) == 1 and "cut off" in (entry[0].error_msg or "")
        s.close()


def test_a_null_finish_reason_counts_as_cut(harness):
    turns = [{"content": "Writing.", "tool_calls": [_write_call()], "cut": True}, {"content": "fine"}]
    with openai_server(turns) as server:
        s = _session(harness, server)
        r = s.send("go")
        assert r.status == "done" and not (harness.ws / "out.txt").exists()
        assert r.tool_calls[0].status == "error" and CUT_STREAM in (r.tool_calls[0].error_msg or "")
        s.close()


@pytest.mark.parametrize("cut", [{"finish_reason": "length"}, {"cut": True}], ids=["length", "cut"])
def test_a_cut_answer_is_incomplete_and_continue_resumes(harness, cut):
    turns = [{"content": "The answer is forty", **cut}, {"content": "-two, as I was saying."}]
    with openai_server(turns) as server:
        s = _session(harness, server)
        r = s.send("what is it?", stream=True)
        assert r.status == "incomplete" and r.text == "The answer is forty"
        assert r.error and ("length" in r.error or "finish" in r.error)
        assert s.status == "incomplete"
        s.close()
        s = Session.resume(
            r.session_id,
            db=harness.db,
            model=create_model("test-model", base_url=server.base_url, api_key="k", max_retries=0),
        )
        r2 = s.continue_(stream=True)
        assert r2.status == "done" and r2.text == "-two, as I was saying."
        s.close()


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "invoke"])
def test_empty_choices_are_retried_once(harness, stream):
    with openai_server([{"content": "hello", "empty_choices": 1}]) as server:
        s = _session(harness, server)
        r = s.send("hi", stream=stream)
        assert r.status == "done" and r.text == "hello"
        assert len(server.requests) == 2
        s.close()


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "invoke"])
def test_empty_choices_twice_is_a_clear_resumable_error(harness, stream):
    with openai_server([{"content": "hello", "empty_choices": 2}]) as server:
        s = _session(harness, server)
        r = s.send("hi", stream=stream)
        assert r.status == "error" and "no choices" in (r.error or "")
        assert len(server.requests) == 2
        r2 = s.continue_(stream=stream)  # the third attempt is answered
        assert r2.status == "done" and r2.text == "hello"
        s.close()


def test_scripted_model_states_finish_reasons(harness):
    s = harness.session([{"content": "cut here", "finish_reason": "length"}, {"content": "rest"}])
    r = s.send("x")
    assert r.status == "incomplete" and r.text == "cut here"
    assert s.continue_().text == "rest"


def test_cairn_p_exits_non_zero_on_a_cut_answer(tmp_path, db_location):
    root = Path(__file__).resolve().parents[2]
    ws = tmp_path / "ws"
    ws.mkdir()
    turns = [{"content": "Half an answ", "finish_reason": "length"}, {"content": "er, finished."}]
    with openai_server(turns) as server:
        common = ["--base-url", server.base_url, "--model", "test-model", "--db", db_location, "-C", str(ws)]
        env = {**os.environ, "PYTHONPATH": str(root)}

        def cairn(*args: str) -> subprocess.CompletedProcess:
            cmd = [sys.executable, "-m", "cairn.graph.apps.cli", *args, *common, "--output-format", "json"]
            return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=120)

        out = cairn("-p", "answer me")
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert out.returncode == 1 and result["status"] == "incomplete", (out.returncode, out.stderr)
        assert result["result"] == "Half an answ" and "length" in result["error"]
        assert "resume" in out.stderr  # how to go on
        again = cairn("resume", result["session_id"], "-p")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout.strip().splitlines()[-1])["result"] == "er, finished."
