"""The first-write window: a SIGKILL after ``send`` stored the prompt and before the run's
first checkpoint loses nothing -- ``cairn resume -p`` (and ``continue_``) runs the prompt.

A first process (``tests.support.kill_driver``) is killed with a real SIGKILL: once exactly
inside the window (hook ``first_write``), then repeatedly at random delays after ``send``
began.  A second process resumes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from cairn.checkpoints import open_store

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Here is the answer."


class Driver:
    def __init__(self, tmp: Path, db: str) -> None:
        self.ws, self.marks = tmp / "ws", tmp / "marks"
        self.ws.mkdir(parents=True)
        self.marks.mkdir()
        self.db = db
        self.script = tmp / "script.json"
        self.script.write_text(json.dumps({"turns": [{"content": ANSWER}, {"content": "Second answer."}]}))
        self.session_id: str | None = None

    def cmd(self, *action: str, hook: str | None = None) -> list[str]:
        cmd = [
            sys.executable,
            "-m",
            "tests.support.kill_driver",
            "--db",
            self.db,
            "--workspace",
            str(self.ws),
        ]
        cmd += ["--script", str(self.script), "--marks", str(self.marks)]
        cmd += ["--session", self.session_id] if self.session_id else []
        return cmd + (["--hook", hook] if hook else []) + list(action)

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(ROOT)}

    def kill_after(self, marker: str, hook: str, delay: float = 0.0) -> bool:
        """Send, SIGKILL ``delay`` s after ``marker`` appears; False if it finished first."""
        proc = subprocess.Popen(
            self.cmd("--send", "the prompt", hook=hook),
            cwd=ROOT,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.session_id = json.loads(proc.stdout.readline())["session_id"]
        deadline = time.monotonic() + 60
        while not (self.marks / marker).exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, f"{marker} never appeared"
            time.sleep(0.002)
        time.sleep(delay)
        finished = proc.poll() is not None
        if not finished:
            os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
        (self.marks / marker).unlink()
        return not finished

    def resume_cli(self) -> tuple[int, dict]:
        cmd = [sys.executable, "-m", "cairn.graph.apps.cli", "resume", self.session_id or "", "-p"]
        cmd += [
            "--model",
            f"script:{self.script}",
            "--db",
            self.db,
            "-C",
            str(self.ws),
            "--output-format",
            "json",
        ]
        out = subprocess.run(cmd, cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=120)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        return out.returncode, (json.loads(lines[-1]) if lines else {"stderr": out.stderr})

    def transcript(self) -> list:
        store = open_store(self.db)
        try:
            tup = store.saver.get_tuple({"configurable": {"thread_id": self.session_id}})
            head = tup.checkpoint["channel_values"].get("head") if tup else None
            return store.transcript.read(self.session_id or "", head)
        finally:
            store.close()

    def prompt_stored(self) -> bool:
        """Whether the prompt reached the database at all (a kill may come before ``send`` stored it)."""
        store = open_store(self.db)
        try:
            rows = store.db.query("SELECT id FROM cairn_messages WHERE thread_id = ?", (self.session_id,))
            return bool(rows)
        finally:
            store.close()

    def index_status(self) -> str:
        store = open_store(self.db)
        try:
            record = store.sessions.get(self.session_id or "")
            return record.status if record else "(missing)"
        finally:
            store.close()


def _answered_once(messages: list) -> None:
    prompts = [m for m in messages if isinstance(m, HumanMessage) and m.content == "the prompt"]
    assert len(prompts) == 1, messages
    after = messages[messages.index(prompts[0]) + 1 :]
    assert [m.content for m in after if isinstance(m, AIMessage)] == [ANSWER], messages


def test_kill_inside_the_first_write_window_then_resume_runs_the_prompt(tmp_path, db_location):
    d = Driver(tmp_path, db_location)
    assert d.kill_after("prompt-stored", "first_write")
    assert d.transcript() == []  # no checkpoint holds the prompt: exactly the window
    assert d.index_status() == "running"  # not "done": a resume must not say nothing to do
    code, result = d.resume_cli()
    assert code == 0 and result["status"] == "done" and result["result"] == ANSWER, result
    _answered_once(d.transcript())
    code, result = d.resume_cli()  # nothing staged any more: done, nothing run twice
    assert code == 0
    _answered_once(d.transcript())


def test_a_new_message_after_the_kill_follows_the_staged_prompt(tmp_path, db_location):
    d = Driver(tmp_path, db_location)
    assert d.kill_after("prompt-stored", "first_write")
    out = subprocess.run(
        d.cmd("--send", "and another"), cwd=ROOT, env=d.env(), capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    humans = [m.content for m in d.transcript() if isinstance(m, HumanMessage)]
    assert humans == ["the prompt", "and another"]


def test_random_kills_right_after_send_never_lose_the_prompt(tmp_path, db_location):
    rng = random.Random(28)
    killed = 0
    for attempt in range(6):
        d = Driver(tmp_path / f"run{attempt}", db_location)
        killed += d.kill_after("sending", "sending", delay=rng.uniform(0.0, 0.15))
        stored = d.prompt_stored()
        code, result = d.resume_cli()
        assert code == 0 and result.get("status") == "done", result
        if stored:  # once stored, the prompt is run (exactly once), wherever the kill fell
            _answered_once(d.transcript())
        else:  # killed before send stored anything: there is nothing to run, and nothing is
            assert d.transcript() == []
    assert killed >= 3  # most attempts really killed the run mid-way
