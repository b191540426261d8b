"""A Landlock backend that lacks a guarantee on this machine fails closed per guarantee
(issue 26, item 6): cairn says so at startup, and a command that would have run unattended in
a profile lacking it asks instead.  Through the graph, with ``CAIRN_SANDBOX_BACKEND=landlock``.

The machine's real gaps cannot be chosen by a test, so the seccomp library is made to look
missing (what a machine without libseccomp reports); the probe commands are plain ``ls``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.core.sandbox_setup import SandboxWarning
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.tools.shell.sandbox import detect_backend, reset_cache
from cairn.tools.shell.sandbox import landlock_backend as llb


@pytest.fixture
def place(monkeypatch):
    monkeypatch.setenv("CAIRN_SANDBOX_BACKEND", "landlock")
    reset_cache()
    if not detect_backend().available:
        pytest.skip(f"Landlock does not work here: {detect_backend().problem}")
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-ll-gaps-", dir="/var/tmp")))
    (base / "ws").mkdir()
    yield base
    reset_cache()
    shutil.rmtree(base, ignore_errors=True)


def _session(place: Path, command: str, **kwargs) -> Session:
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": command}, "id": "b1"}]},
        {"content": "done"},
    ]
    return Session(place / "ws", model=ScriptedChatModel.from_turns(turns), db=":memory:", **kwargs)


def test_without_gaps_a_low_command_runs_read_only(place):
    s = _session(place, "ls")
    r = s.send("go")
    assert r.status == "done"
    assert next(c for c in s.tool_calls() if c.call_id == "b1").sandbox == "read-only"
    s.close()


def test_a_missing_guarantee_is_announced_and_asks(place, monkeypatch):
    monkeypatch.setattr(llb, "seccomp_available", lambda: False)
    reset_cache()
    s = _session(place, "ls")
    with pytest.warns(SandboxWarning, match="landlock sandbox cannot guarantee here: .*udp-localhost"):
        r = s.send("go")
    assert r.status == "awaiting_approval"
    pending = r.pending[0]
    assert "does not guarantee" in (pending.reason or "") and pending.sandbox == "workspace-write"
    r = s.approve()
    assert r.status == "done"
    assert next(c for c in s.tool_calls() if c.call_id == "b1").metadata["sandbox"] == "workspace-write"
    s.close()
