"""Path checks on real paths: symlinks, `..`, the workspace boundary and protected locations."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.policy import Rules, evaluate


def _verdict(tool: str, args: dict, ws: Path, **kw):
    return evaluate(tool, args, workspace=ws, resolve_dns=False, **kw)


@pytest.fixture
def outside(ws: Path) -> Path:
    """A directory next to the workspace (``ws-evil`` shares the workspace's name as a prefix)."""
    path = ws.parent / (ws.name + "-evil")
    path.mkdir()
    (path / "data.txt").write_text("x")
    return path


def test_reads_inside_allow_and_outside_ask(ws: Path, outside: Path) -> None:
    assert _verdict("read_file", {"file_path": "src/app.py"}, ws).decision == "allow"
    assert _verdict("read_file", {"file_path": str(ws / "src" / "app.py")}, ws).decision == "allow"
    verdict = _verdict("read_file", {"file_path": str(outside / "data.txt")}, ws)
    assert verdict.decision == "ask"
    assert str(outside / "data.txt") in verdict.reason  # the sibling with the same prefix is outside


@pytest.mark.parametrize(
    ("given", "decision"),
    [
        ("src/../src/app.py", "allow"),
        ("./src/./app.py", "allow"),
        ("src/../../outside.txt", "ask"),
        ("../" * 12 + "etc/hostname", "ask"),
        ("src/../../home/.ssh/id_rsa", "ask"),
    ],
)
def test_dotdot_is_collapsed_before_judging(given: str, decision: str, ws: Path) -> None:
    assert _verdict("read_file", {"file_path": given}, ws).decision == decision


def test_symlink_out_of_the_workspace_is_judged_by_its_target(ws: Path, outside: Path, home: Path) -> None:
    os.symlink(outside, ws / "vendor")
    os.symlink(home / ".ssh", ws / "keys")
    read = _verdict("read_file", {"file_path": "vendor/data.txt"}, ws)
    assert read.decision == "ask" and "through a symlink" in read.reason
    key = _verdict("read_file", {"file_path": "keys/id_rsa"}, ws)
    assert key.decision == "ask" and "credentials" in key.reason
    write = _verdict("write_file", {"file_path": "vendor/new.txt", "content": "x"}, ws, mode="accept-edits")
    assert write.decision == "ask" and "outside the workspace" in write.reason
    assert _verdict("write_file", {"file_path": "keys/authorized_keys"}, ws, mode="bypass").decision == "deny"


def test_shell_commands_follow_symlinks_too(ws: Path, outside: Path, home: Path) -> None:
    os.symlink(outside, ws / "vendor")
    os.symlink(home / ".ssh", ws / "keys")
    assert _verdict("bash", {"command": "cat vendor/data.txt"}, ws).decision == "ask"
    assert _verdict("bash", {"command": "cat keys/id_rsa"}, ws).decision == "ask"
    assert _verdict("bash", {"command": "echo x > vendor/new.txt"}, ws, mode="accept-edits").decision == "ask"
    assert (
        _verdict("bash", {"command": "echo key >> keys/authorized_keys"}, ws, mode="bypass").decision
        == "deny"
    )


def test_dangling_symlink_is_judged_by_where_it_points(ws: Path) -> None:
    os.symlink("/etc/cron.d/cairn-test", ws / "innocent.txt")  # the target does not exist
    verdict = _verdict("write_file", {"file_path": "innocent.txt", "content": "x"}, ws, mode="bypass")
    assert verdict.decision == "deny" and "/etc" in verdict.reason


def test_symlinked_parent_directory_is_resolved(ws: Path, outside: Path) -> None:
    os.symlink(outside, ws / "src" / "lib")
    verdict = _verdict("edit_file", {"file_path": "src/lib/data.txt"}, ws, mode="accept-edits")
    assert verdict.decision == "ask"


def test_symlink_inside_the_workspace_stays_inside(ws: Path) -> None:
    os.symlink(ws / "src", ws / "source")
    assert _verdict("read_file", {"file_path": "source/app.py"}, ws).decision == "allow"
    assert _verdict("edit_file", {"file_path": "source/app.py"}, ws, mode="accept-edits").decision == "allow"


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (".git/config", ".git"),
        (".git/hooks/pre-commit", ".git"),
        ("sub/.git/hooks/post-checkout", ".git"),
        (".cairn/settings.toml", "cairn's project settings"),
        (".cairn/settings.local.toml", "cairn's project settings"),
        ("~/.bashrc", "shell startup file"),
        ("~/.zshrc", "shell startup file"),
        ("~/.ssh/authorized_keys", "credentials"),
        ("~/.gitconfig", "credentials or configuration"),
        ("~/.config/autostart/x.desktop", "autostart"),
        ("/etc/profile.d/x.sh", "system location"),
        ("/usr/local/bin/git", "system location"),
    ],
)
def test_protected_paths_are_refused(path: str, why: str, ws: Path) -> None:
    verdict = _verdict("write_file", {"file_path": path, "content": "x"}, ws)
    assert verdict.decision == "deny", verdict
    assert why in verdict.reason


def test_cairn_state_directory_is_protected_and_sensitive(ws: Path) -> None:
    state = Path(os.environ["CAIRN_HOME"])
    (state / "settings.toml").write_text("")
    assert (
        _verdict("write_file", {"file_path": str(state / "settings.toml")}, ws, mode="bypass").decision
        == "deny"
    )
    read = _verdict("read_file", {"file_path": str(state / "settings.toml")}, ws)
    assert read.decision == "ask" and "cairn's state" in read.reason


@pytest.mark.parametrize("path", [".vscode/settings.json", ".envrc", ".husky/pre-commit", ".mcp.json"])
def test_auto_executed_files_in_the_workspace_always_ask(path: str, ws: Path) -> None:
    verdict = _verdict("write_file", {"file_path": path, "content": "x"}, ws, mode="accept-edits")
    assert verdict.decision == "ask" and "automatically" in verdict.reason


def test_credentials_outside_home_dotfiles_also_ask(ws: Path) -> None:
    for path in ("/etc/shadow", "/proc/self/environ"):
        verdict = _verdict("read_file", {"file_path": path}, ws)
        assert verdict.decision == "ask" and verdict.risk == "HIGH"


def test_deny_rules_match_the_real_path_and_the_written_one(ws: Path) -> None:
    (ws / "secrets").mkdir()
    (ws / "secrets" / "token").write_text("x")
    os.symlink(ws / "secrets", ws / "alias")
    real_rule = Rules(deny=["read_file(secrets/**)"])
    assert _verdict("read_file", {"file_path": "alias/token"}, ws, rules=real_rule).decision == "deny"
    assert _verdict("bash", {"command": "cat alias/token"}, ws, rules=real_rule).decision == "deny"
    written_rule = Rules(deny=["read_file(alias/**)"])
    assert _verdict("read_file", {"file_path": "alias/token"}, ws, rules=written_rule).decision == "deny"


def test_allow_rules_match_only_the_real_path(ws: Path, outside: Path) -> None:
    os.symlink(outside, ws / "vendor")
    rules = Rules(allow=["read_file(vendor/**)"])  # names the link, not where it goes
    assert _verdict("read_file", {"file_path": "vendor/data.txt"}, ws, rules=rules).decision == "ask"
    rules = Rules(allow=[f"read_file({outside}/**)"])
    assert _verdict("read_file", {"file_path": "vendor/data.txt"}, ws, rules=rules).decision == "allow"


def test_home_rules_use_tilde(ws: Path, home: Path) -> None:
    (home / "notes.txt").write_text("x")
    rules = Rules(allow=["read_file(~/notes.txt)"])
    assert _verdict("read_file", {"file_path": "~/notes.txt"}, ws, rules=rules).decision == "allow"
    assert _verdict("read_file", {"file_path": str(home / "notes.txt")}, ws, rules=rules).decision == "allow"
    assert _verdict("read_file", {"file_path": "~/.ssh/id_rsa"}, ws, rules=rules).decision == "ask"
    # Allow rules are taken literally: a broad one the user wrote covers credentials too, and a
    # deny rule is how a user keeps them out (documented in docs/policy.md).
    broad = Rules(allow=["read_file(~/**)"])
    assert _verdict("read_file", {"file_path": "~/.ssh/id_rsa"}, ws, rules=broad).decision == "allow"
    guarded = Rules(allow=["read_file(~/**)"], deny=["read_file(~/.ssh/**)"])
    assert _verdict("read_file", {"file_path": "~/.ssh/id_rsa"}, ws, rules=guarded).decision == "deny"


def test_cwd_moves_relative_paths(ws: Path) -> None:
    assert _verdict("read_file", {"file_path": "app.py"}, ws, cwd="src").decision == "allow"
    assert _verdict("bash", {"command": "cat ../src/app.py"}, ws, cwd="src").decision == "allow"
    assert _verdict("bash", {"command": "cat ../../x"}, ws, cwd="src").decision == "ask"


def test_cd_out_of_the_workspace_is_followed(ws: Path, outside: Path) -> None:
    verdict = _verdict("bash", {"command": f"cd {outside} && cat data.txt"}, ws)
    assert verdict.decision == "ask" and "outside" in verdict.reason
    assert _verdict("bash", {"command": "cd src && cat app.py"}, ws).decision == "allow"
