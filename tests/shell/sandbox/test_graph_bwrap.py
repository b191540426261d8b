"""Issue 26 through the graph, under bubblewrap: what a session's shell call really runs in.

A command the classifier wrongly rates LOW (stand-in: the policy is patched to say so) runs
read-only with the home hidden, the workspace's ``.env`` hidden and the host's Unix sockets out
of reach; in bypass mode (workspace-write, no person) protected names cannot be created and
``.env`` stays hidden; a call a person approved sees ``.env``.  The temporary HOME is under
/var/tmp, not /tmp (the sandbox's private /tmp would hide it for the wrong reason)."""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.tools.shell.sandbox import detect_backend, reset_cache
from tests.shell.sandbox.deny_default import settle


@pytest.fixture
def place(monkeypatch):
    monkeypatch.setenv("CAIRN_SANDBOX_BACKEND", "bwrap")
    reset_cache()
    if not detect_backend().available:
        pytest.skip(f"bubblewrap does not work here: {detect_backend().problem}")
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-sbx-graph-", dir="/var/tmp")))
    (base / "ws").mkdir()
    (base / "home").mkdir()
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("CAIRN_HOME", str(base / "cairn-home"))
    (base / "home" / ".pgpass").write_text("db:5432:*:me:graph-pgpass-secret\n")
    (base / "ws" / ".env").write_text("TOKEN=graph-env-secret\n")
    yield base
    settle()
    reset_cache()
    shutil.rmtree(base, ignore_errors=True)


def _session(place: Path, command: str, **kwargs) -> Session:
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": command}, "id": "b1"}]},
        {"content": "done"},
    ]
    return Session(place / "ws", model=ScriptedChatModel.from_turns(turns), db=":memory:", **kwargs)


def _call(session: Session):
    return next(c for c in session.tool_calls() if c.call_id == "b1")


def _result(session: Session) -> str:
    result = _call(session).result
    return result if isinstance(result, str) else str(result)


def test_a_wrongly_low_command_sees_no_home_secret_env_or_host_socket(place, monkeypatch):
    ev = importlib.import_module("cairn.policy.evaluate")
    monkeypatch.setattr(
        ev, "decide_bash", lambda *a, **k: Verdict(Decision.ALLOW, RiskLevel.LOW, "pretend read-only")
    )
    sock_path = str(place / "home" / "docker.sock")
    probe = place / "connect.py"
    probe.write_text(
        "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.settimeout(2)\n"
        "s.connect(sys.argv[1])\nprint('CONNECTED')\n"
    )
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(sock_path)
        server.listen(1)
        s = _session(place, f"cat ~/.pgpass .env; '{sys.executable}' '{probe}' '{sock_path}'")
        r = s.send("go")
        assert r.status == "done"
        out = _result(s)
        assert _call(s).sandbox == "read-only"
        assert "graph-pgpass-secret" not in out and "graph-env-secret" not in out, out
        assert "CONNECTED" not in out, out
        s.close()


def test_bypass_mode_cannot_create_protected_names_nor_read_env(place, monkeypatch):
    """Stand-in for a classifier miss in bypass mode: the policy is made to allow the call."""
    ev = importlib.import_module("cairn.policy.evaluate")
    monkeypatch.setattr(
        ev, "decide_bash", lambda *a, **k: Verdict(Decision.ALLOW, RiskLevel.HIGH, "pretend allowed")
    )
    s = _session(
        place,
        "printf owned > AGENTS.md; mkdir -p .vscode && printf '{}' > .vscode/tasks.json; cat .env",
        mode="bypass",
    )
    r = s.send("go")
    assert r.status == "done" and _call(s).sandbox == "workspace-write"
    out = _result(s)
    assert "graph-env-secret" not in out and "sandbox refused" in out, out
    settle()
    assert not (place / "ws" / "AGENTS.md").exists() and not (place / "ws" / ".vscode").exists()
    s.close()


def test_a_call_a_person_approved_sees_the_env_file(place):
    s = _session(place, "cat .env && printf made > made.txt")
    r = s.send("go")
    assert r.status == "awaiting_approval" and r.pending[0].sandbox == "workspace-write"
    r = s.approve()
    assert r.status == "done"
    assert "graph-env-secret" in _result(s)
    assert (place / "ws" / "made.txt").read_text() == "made"
    s.close()
