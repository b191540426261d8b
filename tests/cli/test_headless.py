"""Headless runs through the real ChatOpenAI client against the tests' local server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.conftest import cairn_cmd, call, last_json_line

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

KEY = {"OPENAI_API_KEY": "dummy"}


def model_flags(server) -> list[str]:
    return ["--model", "test-model", "--base-url", server.base_url]


def tool_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


def test_done_prints_the_answer_and_exits_0(run_cairn, workspace, make_openai_server):
    Path(workspace, "hello.txt").write_text("hello world\n")
    server = make_openai_server(
        [
            {"content": "Reading.", "tool_calls": [call("read_file", "r1", file_path="hello.txt")]},
            {"content": "It says hello world."},
        ]
    )
    p = run_cairn("-p", "what does hello.txt say?", *model_flags(server), env=KEY)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "It says hello world.\n"
    assert "read_file hello.txt" in p.stderr and "\x1b[" not in p.stderr + p.stdout
    assert "hello world" in tool_messages(server.requests[1])[0]["content"]


def test_pause_for_approval_exits_3_then_resume_approve_and_send(run_cairn, workspace, make_openai_server):
    server = make_openai_server(
        [
            {
                "content": "Writing.",
                "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="hi\n")],
            },
            {"content": "Wrote notes.txt."},
            {"content": "You are welcome."},
        ]
    )
    p = run_cairn("-p", "write notes", "--output-format", "json", *model_flags(server), env=KEY)
    assert p.returncode == 3, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "awaiting_approval" and [c["call_id"] for c in out["pending"]] == ["w1"]
    assert set(out) >= {"session_id", "status", "result", "pending", "tool_calls", "usage"}
    sid = out["session_id"]
    assert f"cairn resume {sid} --base-url {server.base_url} --approve all" in p.stderr
    assert not os.path.exists(workspace + "/notes.txt")  # nothing written before approval

    p = run_cairn(
        "resume",
        sid[:10],
        "--approve",
        "all",
        "-p",
        "thanks!",
        "--output-format",
        "json",
        "--base-url",
        server.base_url,
        env=KEY,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "done" and out["result"] == "You are welcome."
    assert Path(workspace, "notes.txt").read_text() == "hi\n"
    assert server.requests[-1]["messages"][-1] == {"role": "user", "content": "thanks!"}


def test_resume_reject_with_feedback_reaches_the_model(run_cairn, workspace, make_openai_server):
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="x")]},
            {"content": "OK, I will use notes.md."},
        ]
    )
    p = run_cairn("-p", "write notes", *model_flags(server), env=KEY)
    assert p.returncode == 3
    p = run_cairn(
        "resume",
        "--last",
        "--reject",
        "w1:use notes.md instead",
        "-p",
        env=KEY | {"OPENAI_BASE_URL": server.base_url},
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout == "OK, I will use notes.md.\n"
    [msg] = tool_messages(server.requests[-1])
    assert "use notes.md instead" in msg["content"]
    assert not os.path.exists(workspace + "/notes.txt")


def test_partial_decisions_are_refused(run_cairn, make_openai_server):
    server = make_openai_server(
        [
            {
                "tool_calls": [
                    call("write_file", "w1", file_path="a", content="1"),
                    call("write_file", "w2", file_path="b", content="2"),
                ]
            }
        ]
    )
    assert run_cairn("-p", "go", *model_flags(server), env=KEY).returncode == 3
    p = run_cairn("resume", "--last", "--approve", "w1", "-p", *model_flags(server), env=KEY)
    assert p.returncode == 2 and "still undecided: w2" in p.stderr
    p = run_cairn(
        "resume", "--last", "--approve", "nope", "--approve", "all", "-p", *model_flags(server), env=KEY
    )
    assert p.returncode == 2 and "no gated call 'nope'" in p.stderr


def test_stream_json_is_one_event_per_line(run_cairn, workspace, make_openai_server):
    Path(workspace, "a.txt").write_text("alpha\n")
    server = make_openai_server(
        [
            {"content": "Let me read it.", "tool_calls": [call("read_file", "r1", file_path="a.txt")]},
            {"content": "It says alpha."},
        ]
    )
    p = run_cairn("-p", "read a.txt", "--output-format", "stream-json", *model_flags(server), env=KEY)
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "result"
    assert {"token", "message", "tool_start", "tool_end"} <= set(kinds)
    assert kinds.index("tool_start") < kinds.index("tool_end")
    assert "".join(e["text"] for e in events if e["type"] == "token") == "Let me read it.It says alpha."
    end = next(e for e in events if e["type"] == "tool_end")
    assert end["call"]["status"] == "success" and "metadata" not in end["call"]
    assert events[-1]["status"] == "done" and events[-1]["result"] == "It says alpha."
    assert events[-1]["session_id"] == events[0]["session_id"]


def test_model_error_exits_1_and_stays_resumable(run_cairn, make_openai_server):
    server = make_openai_server([{"error": {"status": 400, "message": "bad request"}}])
    p = run_cairn("-p", "hi", "--output-format", "json", *model_flags(server), env=KEY)
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["status"] == "error" and "400" in out["error"]
    assert f"cairn resume {out['session_id']}" in p.stderr


def _start_sleeper(cli_env, workspace, server, *extra: str) -> tuple[subprocess.Popen, dict]:
    """A headless run whose bash call blocks until the test creates ``go``; returns at tool_start."""
    proc = subprocess.Popen(
        [
            *cairn_cmd(),
            "-p",
            "run it",
            "--approval",
            "bypass",
            "--output-format",
            "stream-json",
            *model_flags(server),
            *extra,
        ],
        cwd=workspace,
        env=cli_env | KEY,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    start = None
    for line in proc.stdout:
        event = json.loads(line)
        start = start or event
        if event["type"] == "tool_start":
            return proc, start
    raise AssertionError(proc.stderr.read())


SLEEPER = [
    {
        "content": "Running.",
        "tool_calls": [call("bash", "b1", command="while [ ! -f go ]; do sleep 0.1; done; echo ran")],
    },
    {"content": "Finished."},
]


def test_killed_mid_command_resumes_interrupted_exit_4_then_retry(
    cli_env, run_cairn, workspace, make_openai_server
):
    server = make_openai_server(SLEEPER)
    proc, start = _start_sleeper(cli_env, workspace, server)
    time.sleep(0.3)
    proc.kill()
    proc.wait()
    sid = start["session_id"]
    p = run_cairn("resume", sid, "-p", "--output-format", "json", *model_flags(server), env=KEY)
    assert p.returncode == 4, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "interrupted" and [c["call_id"] for c in out["pending"]] == ["b1"]
    assert "--retry all" in p.stderr
    open(f"{workspace}/go", "w").close()
    p = run_cairn("resume", sid, "--retry", "b1", "--output-format", "json", *model_flags(server), env=KEY)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "done" and out["result"] == "Finished."
    [b1] = [c for c in out["tool_calls"] if c["call_id"] == "b1"]
    assert b1["status"] == "success" and "ran" in b1["result"]


def test_ctrl_c_exits_130_then_resume_cancel(cli_env, run_cairn, workspace, make_openai_server):
    server = make_openai_server(SLEEPER)
    proc, start = _start_sleeper(cli_env, workspace, server)
    time.sleep(0.3)
    began = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=15)
    assert time.monotonic() - began < 5  # the command was stopped, not waited for
    assert proc.returncode == 130, err
    assert last_json_line(rest)["status"] == "interrupted"
    assert f"cairn resume {start['session_id']}" in err
    p = run_cairn(
        "resume", "--last", "--cancel", "all", "-p", "--output-format", "json", *model_flags(server), env=KEY
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "done"
    [b1] = [c for c in out["tool_calls"] if c["call_id"] == "b1"]
    assert b1["status"] == "cancelled"
    assert "not to run it again" in tool_messages(server.requests[-1])[0]["content"]


def test_sessions_and_show(run_cairn, workspace, make_openai_server):
    Path(workspace, "a.txt").write_text("alpha\n")
    server = make_openai_server(
        [
            {
                "content": "Reading.",
                "tool_calls": [
                    call("read_file", "r1", file_path="a.txt"),
                    call("write_file", "w1", file_path="b.txt", content="b"),
                ],
            },
            {"content": "Done."},
        ]
    )
    p = run_cairn(
        "-p", "read a.txt and write b.txt", "--output-format", "json", *model_flags(server), env=KEY
    )
    sid = json.loads(p.stdout)["session_id"]
    assert run_cairn("resume", sid, "--reject", "w1:no", "-p", *model_flags(server), env=KEY).returncode == 0

    p = run_cairn("sessions")
    assert p.returncode == 0 and sid[:12] in p.stdout and "read a.txt and write b.txt" in p.stdout
    assert "done" in p.stdout
    [row] = json.loads(run_cairn("sessions", "--json").stdout)
    assert row["session_id"] == sid and row["workspace"] == workspace and row["status"] == "done"
    other = run_cairn("sessions", "-C", "/")
    assert sid[:12] not in other.stdout and "no sessions" in other.stdout
    assert sid[:12] in run_cairn("sessions", "--all", "-C", "/").stdout

    p = run_cairn("show", sid[:8], "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["session_id"] == sid and doc["workspace"] == workspace and doc["status"] == "done"
    assert [m["role"] for m in doc["messages"]] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [(c["call_id"], c["status"]) for c in doc["tool_calls"]] == [
        ("r1", "success"),
        ("w1", "cancelled"),
    ]
    for c in doc["tool_calls"]:
        assert {"call_id", "tool_name", "arguments", "status", "risk", "reason", "result"} <= set(c)
    assert doc["tool_calls"][0]["risk"] == "LOW" and "alpha" in doc["tool_calls"][0]["result"]
    assert "Their message: no" in doc["tool_calls"][1]["result"]
    assert doc["tool_calls"][1]["decision"] == "rejected: no"

    p = run_cairn("show", sid)
    assert p.returncode == 0 and "read_file a.txt" in p.stdout and "write_file b.txt" in p.stdout
    # The rejection is said once, in the person's words (not the sentence written for the model).
    assert p.stdout.count("rejected: no") == 1 and "A person rejected this call" not in p.stdout
