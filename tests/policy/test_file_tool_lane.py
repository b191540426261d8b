"""One lane for every tool (issue 26, item 7): the file tools are bound by the profile their
verdict gives, through ``cairn.policy.evaluate`` and through the graph; and a backend's missing
guarantees turn "would run unattended" into a question (item 6).

Every path here is data handed to the policy or a scripted model's tool call; the writes that
are allowed land in a temporary workspace, and the refused ones are checked not to happen.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.policy import evaluate
from cairn.policy.filetools import lane_refusal
from cairn.policy.rules import Rules
from cairn.tools.workspace import Workspace

WRITES = ("write_file", "edit_file")


def _args(tool: str, path: str) -> dict[str, str]:
    if tool == "edit_file":
        return {"file_path": path, "old_string": "a", "new_string": "b"}
    return {"file_path": path, "content": "x"}


@pytest.mark.parametrize("tool", WRITES)
@pytest.mark.parametrize("target", ["go/bin/git", ".vscode/extensions/x/extension.js"])
def test_bypass_refuses_persistence_outside_the_workspace(ws, home, tool, target):
    verdict = evaluate(tool, _args(tool, str(home / target)), workspace=ws, mode="bypass")
    assert str(verdict.decision) == "deny", verdict
    assert "bypass mode" in verdict.reason and "outside the workspace" in verdict.reason


@pytest.mark.parametrize("mode", ["default", "accept-edits"])
def test_a_write_outside_asks_in_the_other_modes(ws, home, mode):
    verdict = evaluate("write_file", _args("write_file", str(home / "go/bin/git")), workspace=ws, mode=mode)
    assert str(verdict.decision) == "ask"


def test_an_allow_rule_does_not_open_the_lane_outside_the_workspace(ws, home):
    rules = Rules.from_dict({"allow": [f"write_file({home}/**)"]})
    verdict = evaluate("write_file", _args("write_file", str(home / "notes.txt")), workspace=ws, rules=rules)
    assert str(verdict.decision) == "ask"
    assert "workspace-write sandbox" in verdict.reason


def test_inside_the_workspace_bypass_writes_in_the_workspace_write_lane(ws):
    verdict = evaluate("write_file", _args("write_file", "src/new.py"), workspace=ws, mode="bypass")
    assert str(verdict.decision) == "allow" and verdict.sandbox == "workspace-write"


@pytest.mark.parametrize("mode", ["default", "accept-edits", "bypass"])
@pytest.mark.parametrize("target", [".git/hooks/pre-commit", ".git/config", ".cairn/settings.toml"])
def test_control_paths_are_refused_in_every_mode(ws, mode, target):
    verdict = evaluate("write_file", _args("write_file", target), workspace=ws, mode=mode)
    assert str(verdict.decision) == "deny", verdict


@pytest.mark.parametrize("target", [".envrc", "AGENTS.md", ".vscode/tasks.json", ".claude/settings.json"])
def test_protected_names_never_run_unattended(ws, target):
    """A person may approve such an edit; bypass (no one asked) refuses it, an allow rule asks."""
    assert str(evaluate("write_file", _args("write_file", target), workspace=ws).decision) == "ask"
    bypass = evaluate("write_file", _args("write_file", target), workspace=ws, mode="bypass")
    assert str(bypass.decision) == "deny" and "bypass mode" in bypass.reason
    rules = Rules.from_dict({"allow": ["write_file"]})
    ruled = evaluate("write_file", _args("write_file", target), workspace=ws, rules=rules)
    assert str(ruled.decision) == "ask"


@pytest.mark.parametrize("mode", ["default", "accept-edits", "bypass"])
def test_reading_a_hidden_credential_asks_in_every_mode(ws, home, mode):
    verdict = evaluate("read_file", {"file_path": str(home / ".ssh" / "id_rsa")}, workspace=ws, mode=mode)
    assert str(verdict.decision) == "ask"


@pytest.mark.parametrize("target", [".bash_history", ".config/github-copilot/hosts.json", "notes.txt"])
def test_bypass_asks_for_reads_the_sandbox_hides(ws, home, target):
    verdict = evaluate("read_file", {"file_path": str(home / target)}, workspace=ws, mode="bypass")
    assert str(verdict.decision) == "ask" and "sandbox hides" in verdict.reason


def test_bypass_reads_the_home_allowlist_and_outside_home(ws, home, tmp_path):
    for path in (home / ".cache" / "pip" / "wheel", tmp_path / "elsewhere.txt"):
        verdict = evaluate("read_file", {"file_path": str(path)}, workspace=ws, mode="bypass")
        assert str(verdict.decision) == "allow", (path, verdict)


def test_a_low_read_runs_in_the_read_only_lane(ws):
    verdict = evaluate("read_file", {"file_path": "src/app.py"}, workspace=ws)
    assert str(verdict.decision) == "allow" and verdict.sandbox == "read-only"


def test_plan_mode_writes_nothing(ws):
    verdict = evaluate("write_file", _args("write_file", "src/new.py"), workspace=ws, mode="plan")
    assert str(verdict.decision) == "deny"


def test_a_symlink_swapped_in_after_the_verdict_is_refused_before_writing(ws, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    args = _args("write_file", "src/out")
    assert lane_refusal("write_file", args, Workspace(ws)) is None
    (ws / "src" / "out").symlink_to(outside / "target")
    refusal = lane_refusal("write_file", args, Workspace(ws))
    assert refusal is not None and "outside the workspace" in refusal


# --- a backend's missing guarantees ----------------------------------------------------------


def test_a_missing_guarantee_turns_unattended_into_ask(ws):
    assert str(evaluate("bash", {"command": "ls"}, workspace=ws).decision) == "allow"
    verdict = evaluate("bash", {"command": "ls"}, workspace=ws, sandbox_gaps={"read-only": ("survivor",)})
    assert str(verdict.decision) == "ask"
    assert "no process outlives the command" in verdict.reason
    assert verdict.sandbox == "workspace-write"  # what the person's approval runs it in


def test_gaps_of_another_profile_do_not_ask(ws):
    gaps = {"workspace-write": ("hard-link",)}
    assert str(evaluate("bash", {"command": "ls"}, workspace=ws, sandbox_gaps=gaps).decision) == "allow"
    bypass = evaluate("bash", {"command": "touch src/x"}, workspace=ws, mode="bypass", sandbox_gaps=gaps)
    assert str(bypass.decision) == "ask" and "hard link" in bypass.reason


# --- through the graph, under each backend ------------------------------------------------------


@pytest.fixture(params=["bwrap", "landlock"])
def backend(request, monkeypatch):
    """The session's backend forced by ``CAIRN_SANDBOX_BACKEND`` (the file tools' lane does not
    depend on it, and must hold under either)."""
    from cairn.tools.shell.sandbox import detect_backend, reset_cache

    monkeypatch.setenv("CAIRN_SANDBOX_BACKEND", request.param)
    reset_cache()
    if not detect_backend().available:
        pytest.skip(f"{request.param} does not work here")
    yield request.param
    reset_cache()


def _session(root: Path, calls: list[dict], **kwargs) -> Session:
    turns = [{"tool_calls": calls}, {"content": "done"}]
    return Session(root, model=ScriptedChatModel.from_turns(turns), db=":memory:", **kwargs)


def test_bypass_write_file_outside_is_refused_through_the_graph(backend, ws, home):
    target = home / "go" / "bin" / "git"
    call = {"name": "write_file", "args": {"file_path": str(target), "content": "#!/bin/sh\n"}, "id": "w1"}
    s = _session(ws, [call], mode="bypass")
    r = s.send("go")
    assert r.status == "done"
    done = next(c for c in s.tool_calls() if c.call_id == "w1")
    assert done.status == "cancelled" and "bypass mode" in (done.error_msg or "")
    assert not target.exists() and not target.parent.exists()
    s.close()


def test_bypass_write_file_inside_runs_in_its_lane_through_the_graph(backend, ws):
    call = {"name": "write_file", "args": {"file_path": "src/new.py", "content": "x = 1\n"}, "id": "w1"}
    s = _session(ws, [call], mode="bypass")
    assert s.send("go").status == "done"
    done = next(c for c in s.tool_calls() if c.call_id == "w1")
    assert done.sandbox == "workspace-write"
    assert (ws / "src" / "new.py").read_text() == "x = 1\n"
    s.close()


def test_the_graph_checks_the_path_again_before_writing(backend, ws, tmp_path, monkeypatch):
    """The path turns into a symlink out of the workspace between the verdict and the write."""
    outside = tmp_path / "outside"
    outside.mkdir()
    from cairn.graph.nodes import tool_execution

    real = tool_execution._lane_refusal

    def swap_then_check(call, ctx):
        if not os.path.lexists(ws / "src" / "late"):
            (ws / "src" / "late").symlink_to(outside / "late")
        return real(call, ctx)

    monkeypatch.setattr(tool_execution, "_lane_refusal", swap_then_check)
    call = {"name": "write_file", "args": {"file_path": "src/late", "content": "x"}, "id": "w1"}
    s = _session(ws, [call], mode="bypass")
    assert s.send("go").status == "done"
    done = next(c for c in s.tool_calls() if c.call_id == "w1")
    assert done.status == "error" and "outside the workspace" in (done.error_msg or str(done.metadata))
    assert not (outside / "late").exists()
    s.close()
