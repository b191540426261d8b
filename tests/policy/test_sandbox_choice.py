"""Verdict.sandbox: which OS sandbox profile a shell command gets, and the sandbox settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.policy import PolicyConfigError, Rules, evaluate
from cairn.policy.sandbox import load_sandbox_settings
from cairn.policy.sandbox_paths import hidden_paths, protected_in_workspace


def _bash(command: str, ws: Path, **kw):
    return evaluate("bash", {"command": command}, workspace=ws, resolve_dns=False, **kw)


def test_low_auto_allow_runs_read_only(workspace):
    v = _bash("git status && ls", workspace)
    assert (v.decision, v.sandbox) == ("allow", "read-only")


@pytest.mark.parametrize(
    ("command", "kw"),
    [
        ("touch notes.txt", {"rules": Rules(allow=("bash(touch:*)",))}),  # settings / session rule
        ("touch notes.txt", {"mode": "accept-edits"}),
        ("touch notes.txt", {"mode": "bypass"}),
        ("ls", {"mode": "bypass"}),  # bypass runs everything in workspace-write
    ],
)
def test_rules_modes_and_bypass_run_workspace_write(workspace, command, kw):
    v = _bash(command, workspace, **kw)
    assert (v.decision, v.sandbox) == ("allow", "workspace-write")


def test_a_call_that_asks_gets_workspace_write_once_approved(workspace):
    v = _bash("pytest -q", workspace)
    assert (v.decision, v.sandbox) == ("ask", "workspace-write")


def test_denied_calls_and_other_tools_have_no_sandbox(workspace):
    assert _bash("git push", workspace, rules=Rules(deny=("bash(git push:*)",))).sandbox is None
    v = evaluate("web_fetch", {"url": "https://example.com/"}, workspace=workspace)
    assert v.sandbox is None


def test_file_tools_allowed_unattended_get_their_lane(workspace):
    """Issue 26: one lane for every tool (tests/policy/test_file_tool_lane.py has the rest)."""
    v = evaluate("read_file", {"file_path": "x.txt"}, workspace=workspace)
    assert v.decision == "allow" and v.sandbox == "read-only"
    v = evaluate("write_file", {"file_path": "x.txt", "content": ""}, workspace=workspace, mode="bypass")
    assert v.decision == "allow" and v.sandbox == "workspace-write"


def test_settings_off_gives_off_and_keeps_the_decision(workspace):
    for command, decision in (("ls", "allow"), ("pytest", "ask")):
        v = _bash(command, workspace, sandbox="off")
        assert (v.decision, v.sandbox) == (decision, "off")


@pytest.mark.parametrize("mode", ["default", "accept-edits", "bypass", "plan"])
def test_no_backend_fails_closed(workspace, mode):
    v = _bash("ls", workspace, sandbox="unavailable", mode=mode)
    assert (v.decision, v.sandbox) == ("ask", "off")
    assert "no OS sandbox works" in v.reason
    assert (
        _bash(
            "git push --force", workspace, rules=Rules(deny=("bash(git push:*)",)), sandbox="unavailable"
        ).decision
        == "deny"
    )


def test_unknown_sandbox_state_is_an_error(workspace):
    with pytest.raises(ValueError):
        _bash("ls", workspace, sandbox="maybe")


def test_sandbox_settings(workspace, tmp_path):
    user = tmp_path / "user.toml"
    assert load_sandbox_settings(workspace, user_config=user).enabled
    (Path(workspace) / ".cairn").mkdir()
    settings = Path(workspace) / ".cairn" / "settings.toml"
    settings.write_text('sandbox = "off"\nsandbox_hidden_paths = ["~/.config/mytool"]\n')
    user.write_text('sandbox_hidden_paths = ["/srv/secrets"]\n')
    loaded = load_sandbox_settings(workspace, user_config=user)
    assert loaded.enabled  # a project file (a cloned repository) cannot turn the sandbox off
    assert loaded.hidden == ("~/.config/mytool", "/srv/secrets")  # but it may hide more
    user.write_text('sandbox = "off"\n')
    loaded = load_sandbox_settings(workspace, user_config=user)
    assert not loaded.enabled and loaded.off_by == str(user)
    settings.write_text('sandbox = "no"\n')
    with pytest.raises(PolicyConfigError, match="sandbox must be"):
        load_sandbox_settings(workspace, user_config=user)


def test_hidden_and_protected_lists(workspace, monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    hidden = hidden_paths(("~/.config/mytool",))
    for name in (
        ".ssh",
        ".aws",
        ".gnupg",
        ".docker",
        ".config/gcloud",
        ".netrc",
        ".pypirc",
        ".git-credentials",
    ):
        assert str(home / name) in hidden
    assert str(home / ".config" / "mytool") in hidden
    (Path(workspace) / ".git" / "hooks").mkdir(parents=True)
    read_only, placeholders = protected_in_workspace(workspace)
    for name in (".git/hooks", ".git/config", ".cairn"):
        assert str(Path(workspace) / name) in read_only
    assert str(Path(workspace) / ".cairn") in placeholders
    assert not any(".bashrc" in p for p in read_only)
    read_only, _ = protected_in_workspace(home)  # a workspace that is the home directory
    assert str(home / ".bashrc") in read_only and str(home / ".local" / "bin") in read_only
