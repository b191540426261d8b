"""The sandbox through the graph: the verdict's profile is what the command really runs in.

Probes are harmless: they write a marker file.  The "outside" directory is under /var/tmp, not
/tmp, so the sandbox's private /tmp cannot make a write vanish for an unrelated reason.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.core.sandbox_setup import SandboxWarning
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.graph.session.decision_forms import DecisionError
from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.tools.shell.sandbox import detect_backend


@pytest.fixture
def place(tmp_path):
    if not detect_backend().available:
        pytest.skip(f"no sandbox backend works here: {detect_backend().problem}")
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-sbx-graph-", dir="/var/tmp")))
    (base / "ws" / "sub").mkdir(parents=True)  # writes go to sub/: Landlock cannot allow the root
    (base / "outside").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _session(place: Path, command: str, **kwargs) -> Session:
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": command}, "id": "b1"}]},
        {"content": "done"},
    ]
    return Session(place / "ws", model=ScriptedChatModel.from_turns(turns), db=":memory:", **kwargs)


def _call(session: Session):
    return next(c for c in session.tool_calls() if c.call_id == "b1")


def test_a_command_the_classifier_wrongly_rates_low_runs_read_only(place, monkeypatch):
    """Stand-in for a classifier bypass: the policy is made to rate a writing command LOW."""
    ev = importlib.import_module("cairn.policy.evaluate")  # the module (the package exports the function)
    monkeypatch.setattr(
        ev, "decide_bash", lambda *a, **k: Verdict(Decision.ALLOW, RiskLevel.LOW, "pretend read-only")
    )
    s = _session(place, f"printf x > inside.txt; printf x > {place / 'outside' / 'marker'}")
    r = s.send("go")
    assert r.status == "done"
    call = _call(s)
    assert call.sandbox == "read-only" and call.metadata["sandbox"] == "read-only"
    assert not (place / "ws" / "inside.txt").exists()
    assert not (place / "outside" / "marker").exists()
    s.close()


def test_an_approved_command_runs_workspace_write(place):
    s = _session(place, f"printf x > sub/made.txt; printf x > {place / 'outside' / 'marker'}; echo ran")
    r = s.send("go")
    assert r.status == "awaiting_approval" and r.pending[0].sandbox == "workspace-write"
    r = s.approve()
    assert r.status == "done"
    assert (place / "ws" / "sub" / "made.txt").read_text() == "x"
    assert not (place / "outside" / "marker").exists()
    assert _call(s).metadata["sandbox"] == "workspace-write"
    s.close()


def test_approve_without_sandbox_runs_unsandboxed(place):
    s = _session(place, f"printf x > {place / 'outside' / 'marker'}")
    r = s.send("go")
    assert r.status == "awaiting_approval"
    r = s.approve("b1", sandbox="off")
    assert r.status == "done"
    assert (place / "outside" / "marker").read_text() == "x"
    call = _call(s)
    assert call.sandbox == "off" and call.metadata["sandbox"] == "off"
    assert call.decision == "approved without sandbox"
    s.close()


def test_decide_takes_the_sandbox_choice_and_refuses_it_on_a_reject(place):
    s = _session(place, f"printf x > {place / 'outside' / 'marker'}")
    s.send("go")
    with pytest.raises(DecisionError):
        s.decide({"b1": {"action": "reject", "sandbox": "off"}})
    with pytest.raises(ValueError):
        s.approve("b1", sandbox="read-only")
    r = s.decide({"b1": {"action": "approve", "sandbox": "off"}})
    assert r.status == "done" and (place / "outside" / "marker").exists()
    s.close()


def test_bypass_mode_runs_in_workspace_write(place):
    s = _session(place, f"printf x > sub/made.txt; printf x > {place / 'outside' / 'marker'}", mode="bypass")
    r = s.send("go")
    assert r.status == "done"
    assert _call(s).sandbox == "workspace-write"
    assert (place / "ws" / "sub" / "made.txt").exists() and not (place / "outside" / "marker").exists()
    s.close()


def test_allow_rule_runs_in_workspace_write(place):
    s = _session(place, "touch sub/made.txt", rules={"allow": ["bash(touch:*)"]})
    r = s.send("go")
    assert r.status == "done" and _call(s).sandbox == "workspace-write"
    assert (place / "ws" / "sub" / "made.txt").exists()
    s.close()


def test_no_backend_fails_closed(place, monkeypatch):
    monkeypatch.setenv("CAIRN_SANDBOX_BACKEND", "none")  # configuration, not a broken machine
    s = _session(place, "ls")
    with pytest.warns(SandboxWarning, match="no shell sandbox works"):
        r = s.send("go")
    assert r.status == "awaiting_approval"  # a LOW command that would have run read-only asks
    assert "no OS sandbox works" in (r.pending[0].reason or "")
    assert r.pending[0].sandbox == "off"
    r = s.approve()
    assert r.status == "done" and _call(s).metadata["sandbox"] == "off"
    s.close()


def test_settings_sandbox_off_restores_todays_behaviour_loudly(place):
    (place / "ws" / ".cairn").mkdir()
    (place / "ws" / ".cairn" / "settings.toml").write_text('sandbox = "off"\n')
    s = _session(place, "ls")
    assert s.core.sandbox.state != "off"  # a project file cannot turn the sandbox off
    s.close()
    user = Path(os.environ["CAIRN_HOME"]) / "settings.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('sandbox = "off"\n')
    s = _session(place, "ls")
    with pytest.warns(SandboxWarning, match="sandbox is OFF"):
        r = s.send("go")
    assert r.status == "done" and _call(s).sandbox == "off"
    s.close()
