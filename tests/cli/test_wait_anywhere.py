"""Approvals from anywhere: a headless run waits on its pause until another process decides.

Two real processes share one database (a SQLite file, or a Postgres schema where the waiter
is woken by LISTEN/NOTIFY): ``cairn -p ... --wait`` pauses on a gated ``write_file`` and
waits; ``cairn decide`` / ``cairn resume --approve`` / ``Session.record_decisions`` in another
process records the decision; the waiting process applies it and finishes the task.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.cli.conftest import cairn_cmd, call

pytestmark = pytest.mark.slow

TURNS = [
    {"content": "", "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="hi\n")]},
    {"content": "wrote it"},
]


class Waiter:
    """``cairn -p ... --wait`` in the background, its stderr read line by line."""

    def __init__(self, env: dict, workspace: str, spec: str, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [*cairn_cmd(), "-p", "write notes", "--model", spec, "--output-format", "json", "--wait", *extra],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.out: list[str] = []
        # One reader per pipe, each the only reader of its pipe (communicate() would race them).
        self.readers = [
            threading.Thread(target=self._read_err, daemon=True),
            threading.Thread(target=lambda: self.out.extend(self.proc.stdout), daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.err.append(line)
            self.lines.put(line)

    def session_waiting(self, timeout: float = 60) -> str:
        """The session id, once the process says it is waiting."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                assert self.proc.poll() is None, "".join(self.err)
                continue
            if "waiting for decisions" in line:
                return line.split("(session ", 1)[1].split(")", 1)[0]
        raise AssertionError("never waited: " + "".join(self.err))

    def finish(self, timeout: float = 60) -> tuple[int, dict]:
        self.proc.wait(timeout=timeout)
        for reader in self.readers:
            reader.join(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return self.proc.returncode, json.loads("".join(self.out).strip().splitlines()[-1])


@pytest.fixture
def env(cli_env, db_location):
    return {**cli_env, "CAIRN_DB": db_location}


def run(env: dict, workspace: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*cairn_cmd(), *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_waiting_run_continues_with_decisions_from_cairn_decide(env, workspace, script):
    waiter = Waiter(env, workspace, script(TURNS))
    sid = waiter.session_waiting()
    assert not (Path(workspace) / "notes.txt").exists()
    decided = run(env, workspace, "decide", sid, "--approve", "all")
    assert decided.returncode == 0, decided.stderr
    assert "the run waiting on it applies them" in decided.stderr
    code, result = waiter.finish()
    assert code == 0 and result["status"] == "done" and result["result"] == "wrote it", result
    assert (Path(workspace) / "notes.txt").read_text() == "hi\n"
    [w1] = [c for c in result["tool_calls"] if c["call_id"] == "w1"]
    assert w1["status"] == "success"


def test_resume_with_flags_hands_decisions_to_the_waiting_run(env, workspace, script):
    waiter = Waiter(env, workspace, script(TURNS))
    sid = waiter.session_waiting()
    handed = run(env, workspace, "resume", sid, "-p", "--reject", "w1:not that file")
    assert handed.returncode == 0, handed.stderr
    code, result = waiter.finish()
    assert code == 0 and result["status"] == "done", result
    assert not (Path(workspace) / "notes.txt").exists()
    [w1] = [c for c in result["tool_calls"] if c["call_id"] == "w1"]
    assert w1["status"] == "cancelled"


def test_a_notebook_in_another_process_records_decisions(env, workspace, script, db_location):
    from cairn import Session

    waiter = Waiter(env, workspace, script(TURNS))
    sid = waiter.session_waiting()
    other = Session.resume(sid, db=db_location)
    try:
        assert other.waiting.held_elsewhere()
        with pytest.raises(Exception, match="another process"):
            other.approve()  # running it here is refused: the waiting process holds it
        other.record_decisions({"w1": "approve"})
    finally:
        other.close()
    code, result = waiter.finish()
    assert code == 0 and result["status"] == "done", result
    assert (Path(workspace) / "notes.txt").read_text() == "hi\n"


def test_timeout_and_ctrl_c_leave_the_session_paused_and_resumable(env, workspace, script):
    timed = Waiter(env, workspace, script(TURNS), "--wait-timeout", "1")
    sid = timed.session_waiting()
    code, result = timed.finish()
    assert code == 3 and result["status"] == "awaiting_approval"

    # Decided while nobody waits: the next resume applies the recorded decision.
    decided = run(env, workspace, "decide", sid, "--approve", "w1")
    assert decided.returncode == 0 and "no run is waiting" in decided.stderr, decided.stderr
    resumed = run(env, workspace, "resume", sid, "-p", "--output-format", "json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["status"] == "done"
    assert (Path(workspace) / "notes.txt").read_text() == "hi\n"

    (Path(workspace) / "notes.txt").unlink()
    stopped = Waiter(env, workspace, script(TURNS))
    sid = stopped.session_waiting()
    stopped.proc.send_signal(signal.SIGINT)
    code, result = stopped.finish()
    assert code == 130 and result["status"] == "awaiting_approval", result
    again = run(env, workspace, "resume", sid, "-p", "--approve", "all", "--output-format", "json")
    assert again.returncode == 0, again.stderr
    assert (Path(workspace) / "notes.txt").read_text() == "hi\n"


def test_a_sub_agents_call_is_decided_from_another_process_while_the_parent_waits(env, workspace, script):
    kid = script(
        [{"tool_calls": [call("write_file", "c1", file_path="kid.txt", content="k\n")]}, {"content": "ok"}]
    )
    spawn = call("agent", "p1", description="kid", prompt="write", read_only=False, model=kid)
    waiter = Waiter(env, workspace, script([{"tool_calls": [spawn]}, {"content": "all done"}]))
    sid = waiter.session_waiting()
    assert run(env, workspace, "decide", sid, "--approve", "p1").returncode == 0  # the agent call itself
    assert waiter.session_waiting() == sid  # now its sub-agent's call waits, shown at the parent
    assert "p1/c1  [sub-agent: kid] write_file kid.txt" in "".join(waiter.err)
    assert not (Path(workspace) / "kid.txt").exists()
    decided = run(env, workspace, "decide", sid, "--approve", "p1/c1")
    assert decided.returncode == 0, decided.stderr
    code, result = waiter.finish()
    assert code == 0 and result["status"] == "done" and result["result"] == "all done", result
    assert (Path(workspace) / "kid.txt").read_text() == "k\n"
