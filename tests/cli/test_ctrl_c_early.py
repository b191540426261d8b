"""Ctrl-C right after a run starts stops it: the stop flag is never cleared after "stopping"
was printed (it used to be, 5-15 ms after start, and the run then did everything).

Real subprocesses of the cairn command (``tests.support.cli_hooks``) get a real SIGINT after
``Session.send`` began and before the graph ran: sent by the process to itself, and sent by
this test when the process says it is sending.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cairn import Session

ROOT = Path(__file__).resolve().parents[2]
TURNS = [
    {
        "content": "Writing.",
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "ran.txt", "content": "x\n"}, "id": "w1"}
        ],
    },
    {"content": "Wrote it."},
]


def _start(tmp_path: Path, db: str, *hook: str) -> tuple[subprocess.Popen, Path, str]:
    ws, marks = tmp_path / "ws", tmp_path / "marks"
    ws.mkdir()
    marks.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": TURNS}))
    cmd = [
        sys.executable, "-m", "tests.support.cli_hooks", str(marks), *hook, "--",
        "-p", "write ran.txt", "--model", f"script:{script}", "--db", str(db),
        "-C", str(ws), "--approval", "accept-edits", "--output-format", "json",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, ws, db


def _check_stopped(proc: subprocess.Popen, ws: Path, db: str) -> None:
    out, err = proc.communicate(timeout=120)
    assert "stopping" in err, err
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert not (ws / "ran.txt").exists(), "the run went on after the stop was announced"
    session_id = json.loads(out.strip().splitlines()[-1])["session_id"]
    s = Session.resume(session_id, db=str(db), model="script:/dev/null")
    try:
        assert s.status in ("interrupted", "error"), s.status
        assert [c for c in s.tool_calls() if c.status == "success"] == []
    finally:
        s.close()


@pytest.mark.parametrize("attempt", range(2))
def test_self_sent_sigint_right_after_start_stops_the_run(tmp_path, db_location, attempt):
    proc, ws, db = _start(tmp_path, db_location, "--self-sigint")
    _check_stopped(proc, ws, db)


def test_sigint_from_outside_while_the_run_starts(tmp_path, db_location):
    proc, ws, db = _start(tmp_path, db_location)
    deadline = time.monotonic() + 60
    while not (tmp_path / "marks" / "sending").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _check_stopped(proc, ws, db)


def test_a_stop_before_the_run_starts_holds_until_that_run_ends(tmp_path, db_location):
    from cairn.graph.models.scripted import ScriptedChatModel

    ws = tmp_path / "ws"
    ws.mkdir()
    model = ScriptedChatModel.from_turns([TURNS[0], TURNS[1]])
    s = Session(ws, model=model, db=db_location, mode="accept-edits")
    s.stop()  # what the Ctrl-C handler does when the signal beats the graph
    r = s.send("write ran.txt")
    assert r.status == "interrupted" and r.usage["model_calls"] == 0
    assert not (ws / "ran.txt").exists()
    assert not s.core.cancel_event.is_set()  # cleared once that run ended
    r = s.send("now really")
    assert r.status == "done" and (ws / "ran.txt").exists()
    s.close()
