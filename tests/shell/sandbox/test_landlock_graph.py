"""Landlock parity through the graph (issue 26, item 6): a session with
``CAIRN_SANDBOX_BACKEND=landlock`` in bypass mode (its commands run in ``workspace-write``
without a question).  Harmless probes: marker files, a sleeper that writes a marker later."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.tools.shell.sandbox import detect_backend, reset_cache


@pytest.fixture
def place(monkeypatch):
    monkeypatch.setenv("CAIRN_SANDBOX_BACKEND", "landlock")
    reset_cache()
    if not detect_backend().available:
        pytest.skip(f"Landlock does not work here: {detect_backend().problem}")
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-ll-graph-", dir="/var/tmp")))
    for d in ("ws/sub", "outside", "home"):
        (base / d).mkdir(parents=True)
    monkeypatch.setenv("HOME", str(base / "home"))
    yield base
    reset_cache()
    shutil.rmtree(base, ignore_errors=True)


def _run(place: Path, command: str) -> Session:
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": command}, "id": "b1"}]},
        {"content": "done"},
    ]
    s = Session(place / "ws", model=ScriptedChatModel.from_turns(turns), db=":memory:", mode="bypass")
    assert s.send("go").status == "done"
    call = next(c for c in s.tool_calls() if c.call_id == "b1")
    assert call.sandbox == "workspace-write" and call.metadata["sandbox"] == "workspace-write"
    return s


def test_a_workspace_symlink_leads_nowhere_outside(place):
    (place / "ws" / "x").symlink_to("../outside")
    s = _run(place, "printf owned > x/marker; printf ok > sub/in.txt")
    s.close()
    assert not (place / "outside" / "marker").exists()
    assert (place / "ws" / "sub" / "in.txt").read_text() == "ok"


def test_a_process_that_leaves_its_session_does_not_outlive_the_command(place):
    marker = place / "ws" / "sub" / "late"
    script = place / "ws" / "sub" / "sleeper.py"
    script.write_text(
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    try:\n"
        "        os.setsid()\n"
        "    except OSError:\n"
        "        pass\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(1.5)\n"
        f"        open({str(marker)!r}, 'w').write('late')\n"
        "    os._exit(0)\n"
        "os.wait()\n"
    )
    s = _run(place, f"python3 {script}")
    s.close()
    time.sleep(2.5)
    assert not marker.exists()
