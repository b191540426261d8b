"""Rewind survives SIGKILL: mid-rewind (completed on the next open) and mid-snapshot."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from tests.graph.rewind_support import bash, fingerprint, one_call_per_turn, user_repo

ROOT = Path(__file__).resolve().parents[2]
MANY = "mkdir -p many && for i in $(seq 1 40); do echo $i > many/f$i.txt; done && sed -i 's/beta/B/' a.txt"


class Proc:
    def __init__(self, tmp: Path, turns: list[dict], db: str) -> None:
        self.ws = tmp / "ws"
        self.ws.mkdir()
        user_repo(self.ws)
        self.db = db  # a SQLite file or a postgresql:// URL (``db_location``)
        self.marks = tmp / "marks"
        self.marks.mkdir()
        self.script = tmp / "script.json"
        self.script.write_text(json.dumps(turns))
        self.turns = turns
        self.sid = "killsession"

    def session(self) -> Session:
        model = ScriptedChatModel.from_turns(self.turns)
        return Session(self.ws, model=model, db=self.db, mode="bypass", session_id=self.sid)

    def start_and_kill(self, *action: str, hook: str) -> None:
        cmd = [
            sys.executable,
            "-m",
            "tests.support.rewind_driver",
            "--db",
            self.db,
            "--workspace",
            str(self.ws),
        ]
        cmd += ["--script", str(self.script), "--session", self.sid, "--marks", str(self.marks), *action]
        proc = subprocess.Popen(
            [*cmd, "--hook", hook], cwd=ROOT, env=dict(os.environ), start_new_session=True
        )
        deadline = time.monotonic() + 120
        while not (self.marks / "hook").exists():
            assert proc.poll() is None, f"the driver exited early ({proc.returncode})"
            assert time.monotonic() < deadline, "the driver never reached the hook"
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL


def test_sigkill_during_a_rewind_is_completed_on_the_next_open(tmp_path, db_location):
    turns = one_call_per_turn([[bash("echo x >> a.txt && rm old.txt", "c1")], [bash(MANY, "c2")]])
    p = Proc(tmp_path, turns, db_location)
    s = p.session()
    start = fingerprint(p.ws)
    s.send("one")
    s.send("two")
    s.close()
    p.start_and_kill("--rewind", "c1", hook="write")
    s = p.session()
    [started] = s.store.snapshots.rewinds(s.id)
    assert started.status == "started"  # killed mid-way: files half restored
    assert fingerprint(p.ws) != start
    s.close()
    s = Session.resume(p.sid, db=p.db, model=ScriptedChatModel.from_turns(p.turns))
    [done] = s.recovered
    assert done.recovered and done.target == "call c1"
    assert fingerprint(p.ws) == start
    assert [r.status for r in s.store.snapshots.rewinds(s.id)] == ["done"]
    assert [(m.type, m.content) for m in s.history()] == [("human", "one")]  # the conversation moved too
    s.close()


def test_sigkill_during_a_snapshot_leaves_the_call_unstarted_and_rewindable(tmp_path, db_location):
    p = Proc(tmp_path, one_call_per_turn([[bash("echo made > made.txt && rm old.txt", "c1")]]), db_location)
    start = fingerprint(p.ws)
    p.start_and_kill("--send", "go", hook="snapshot")
    s = p.session()
    assert not (p.ws / "made.txt").exists()  # killed before the call started
    assert "c1" not in {e.call_id for e in s.store.journal.entries(s.id)}  # nor was it journaled
    r = s.continue_()
    assert r.status == "done" and (p.ws / "made.txt").exists()
    s.rewind("c1", conversation=False)
    assert fingerprint(p.ws) == start
    s.close()
