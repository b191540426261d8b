"""On PostgreSQL a waiting run is woken by LISTEN/NOTIFY from another process, not by polling.

``test_wait_anywhere.py`` runs the approvals-from-anywhere flows on both backends, but a
waiter on Postgres also re-reads the decisions table every ``FALLBACK_POLL_S`` seconds, so
those tests would pass with NOTIFY broken.  Here the fallback is switched off in the
waiting process (this one): the run can only continue if the ``pg_notify`` sent by
``cairn decide`` in a separate process reaches its LISTEN connection.  Postgres-only by
nature: SQLite has no notifications (it polls).
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

import pytest

from cairn import Session
from cairn.checkpoints import signals
from cairn.graph.models.scripted import ScriptedChatModel
from tests.cli.conftest import cairn_cmd

pytestmark = pytest.mark.slow

TURNS = [
    {"tool_calls": [{"name": "write_file", "args": {"file_path": "n.txt", "content": "hi\n"}, "id": "w1"}]},
    {"content": "wrote it"},
]


def test_cairn_decide_in_another_process_wakes_the_waiter_by_notify(pg_url, workspace, cli_env, monkeypatch):
    monkeypatch.setattr(signals, "FALLBACK_POLL_S", 1e9)  # only a notification can wake it
    listening = threading.Event()
    woken: list[bool] = []
    real_wait = signals.ListenWaiter.wait

    def watched_wait(self, timeout: float) -> bool:
        # Called once LISTEN is on the server and the first look at the table found nothing.
        listening.set()
        got = real_wait(self, timeout)
        woken.append(got)
        return got

    monkeypatch.setattr(signals.ListenWaiter, "wait", watched_wait)
    session = Session(workspace, model=ScriptedChatModel.from_turns(TURNS), db=pg_url)
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = session.send("write n.txt", wait=True, wait_timeout=120)
        except BaseException as exc:  # reported by the assertion below
            outcome["error"] = exc

    runner = threading.Thread(target=run)
    runner.start()
    try:
        assert listening.wait(60), outcome
        decided = subprocess.run(
            [*cairn_cmd(), "decide", session.id, "--approve", "all"],
            cwd=workspace,
            env={**cli_env, "CAIRN_DB": pg_url},
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert decided.returncode == 0, decided.stderr
        assert "the run waiting on it applies them" in decided.stderr
        runner.join(110)
        assert not runner.is_alive(), "the waiter was not woken"
    finally:
        session.stop()
        runner.join(30)
        session.close()
    assert "error" not in outcome, outcome.get("error")
    result = outcome["result"]
    assert result.status == "done" and result.text == "wrote it", result
    assert (Path(workspace) / "n.txt").read_text() == "hi\n"
    assert woken.count(True) == 1  # one wake-up: the notification
