"""A sub-agent's worktree under cairn's state directory is writable only as its own workspace."""

from __future__ import annotations

from cairn.policy.paths import protected_reason, resolve_path
from cairn.tools.workspace import Workspace


def test_worktree_is_its_own_workspace_but_state_stays_protected(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("CAIRN_HOME", str(home))
    tree = home / "worktrees" / "abc-sub-p1"
    tree.mkdir(parents=True)
    inside = Workspace(tree)
    assert protected_reason(resolve_path("notes.txt", inside), inside) is None
    assert "inside a .git" in protected_reason(resolve_path(".git/config", inside), inside)
    for target in (home / "cairn.db", home / "settings.toml", home / "worktrees" / "other" / "x"):
        assert "cairn's own state" in protected_reason(resolve_path(str(target), inside), inside)
    elsewhere = Workspace(tmp_path)
    assert "cairn's own state" in protected_reason(
        resolve_path(str(tree / "notes.txt"), elsewhere), elsewhere
    )
