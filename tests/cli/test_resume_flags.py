"""``cairn resume`` headless decisions against real sessions (scripted model, real subprocesses)."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import cairn_cmd, call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

WAIT_FOR_GO = "while [ ! -f go ]; do sleep 0.1; done; echo ran"
TWO_WRITES = [
    {
        "content": "Writing two files.",
        "tool_calls": [
            call("write_file", "w1", file_path="a.txt", content="a\n"),
            call("write_file", "w2", file_path="b.txt", content="b\n"),
        ],
    },
    {"content": "Both written."},
    {"content": "You are welcome."},
]


def paused(run_cairn, spec: str) -> str:
    p = run_cairn("-p", "write them", "--model", spec, "--output-format", "json")
    assert p.returncode == 3, p.stderr
    return json.loads(p.stdout)["session_id"]


def crashed(cli_env, workspace, spec: str) -> str:
    """A session whose process was SIGKILLed while its bash call ran (status `running`)."""
    proc = subprocess.Popen(
        [
            *cairn_cmd(),
            "-p",
            "run it",
            "--approval",
            "bypass",
            "--model",
            spec,
            "--output-format",
            "stream-json",
        ],
        cwd=workspace,
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sid = None
    try:
        for line in proc.stdout:
            event = json.loads(line)
            sid = sid or event.get("session_id")
            if event["type"] == "tool_start":
                assert event["call"]["status"] == "executing"  # not the Session's "pending"
                break
    finally:
        proc.kill()
        proc.wait()
    assert sid is not None
    return sid


@pytest.mark.parametrize(("flag", "status"), [("--retry", "success"), ("--cancel", "cancelled")])
def test_all_applies_to_a_crashed_session(cli_env, run_cairn, workspace, script, flag, status):
    spec = script(
        [
            {"content": "Running.", "tool_calls": [call("bash", "b1", command=WAIT_FOR_GO)]},
            {"content": "Finished."},
        ]
    )
    sid = crashed(cli_env, workspace, spec)
    [row] = json.loads(run_cairn("sessions", "--json").stdout)
    assert row["status"] == "running"
    Path(workspace, "go").touch()
    p = run_cairn("resume", sid, flag, "all", "-p", "--output-format", "json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["status"] == "done" and out["result"] == "Finished."
    [b1] = [c for c in out["tool_calls"] if c["call_id"] == "b1"]
    assert b1["status"] == status


def test_all_that_matches_nothing_is_a_usage_error(run_cairn, script):
    sid = paused(run_cairn, script(TWO_WRITES))
    p = run_cairn("resume", sid, "--retry", "all", "-p")
    assert p.returncode == 2
    assert "--retry all matches nothing: no call is interrupted" in p.stderr
    assert "w1 (awaiting_approval)" in p.stderr


def test_decisions_on_a_done_session_are_a_clear_usage_error(run_cairn, script):
    p = run_cairn("-p", "hi", "--model", script([{"content": "Hello."}]), "--output-format", "json")
    sid = json.loads(p.stdout)["session_id"]
    p = run_cairn("resume", sid, "--cancel", "c_app", "-p", "--output-format", "json")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr and "SessionError" not in p.stderr
    assert "nothing to decide: no tool call is waiting for a decision (it is done)" in p.stderr
    out = json.loads(p.stdout)  # json consumers get an object too
    assert out["session_id"] == sid and out["status"] == "done" and "nothing to decide" in out["error"]
    p = run_cairn("resume", sid, "--approve", "all", "-p", "--output-format", "stream-json")
    assert p.returncode == 2
    events = [json.loads(line) for line in p.stdout.splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "result" and events[-1]["error"]


def test_conflicting_flags_are_refused(run_cairn, script, workspace):
    sid = paused(run_cairn, script(TWO_WRITES))
    p = run_cairn("resume", sid, "--approve", "all", "--reject", "w2:not this one", "-p")
    assert p.returncode == 2
    assert "conflicting decisions for w2: --approve all and --reject w2:not this one" in p.stderr
    assert not Path(workspace, "a.txt").exists()  # nothing was applied


def test_pause_hint_commands_work_with_several_calls(run_cairn, script, workspace):
    spec = script(TWO_WRITES)
    p = run_cairn("-p", "write them", "--model", spec)
    assert p.returncode == 3
    [reject] = [line.strip() for line in p.stderr.splitlines() if "--reject" in line]
    assert reject.endswith("--reject 'all:what to do instead'")
    p = run_cairn(*shlex.split(reject)[1:], "-p")  # the printed command, as a shell would split it
    assert p.returncode == 0, p.stderr
    assert not Path(workspace, "a.txt").exists() and not Path(workspace, "b.txt").exists()


def test_approve_then_message_reports_both_runs(run_cairn, script, workspace):
    sid = paused(run_cairn, script(TWO_WRITES))
    p = run_cairn("resume", sid, "--approve", "all", "-p", "thanks!", "--output-format", "json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["result"] == "You are welcome."
    assert [(c["call_id"], c["status"]) for c in out["tool_calls"]] == [("w1", "success"), ("w2", "success")]
    assert out["usage"]["model_calls"] == 2  # the decision's run and the message's run
    assert Path(workspace, "a.txt").read_text() == "a\n"


def test_resuming_a_done_session_without_a_message_says_so(run_cairn, script):
    p = run_cairn("-p", "hi", "--model", script([{"content": "Hello."}]), "--output-format", "json")
    sid = json.loads(p.stdout)["session_id"]
    p = run_cairn("resume", sid)
    assert p.returncode == 0, p.stderr
    said = f"session {sid} is done: nothing to do; add -p MESSAGE to continue it"
    assert p.stderr.count(said) == 1, p.stderr  # said once, with no "0 in · 0 out · 0.0 s" run
    assert " in · " not in p.stderr and p.stdout == ""


def test_in_memory_session_prints_no_resume_command(run_cairn, script):
    p = run_cairn("-p", "write them", "--model", script(TWO_WRITES), "--db", ":memory:")
    assert p.returncode == 3
    assert "cairn resume" not in p.stderr
    assert "in memory only (--db :memory:)" in p.stderr
