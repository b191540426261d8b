"""Git worktrees for ``worktree`` sub-agents: one new branch, one directory, outside the checkout.

Worktrees live beside cairn's state directory (``cairn.checkpoints.location.worktrees_dir``,
e.g. ``~/.local/state/cairn-worktrees/<child id>``), never inside the person's working tree.  The child's work is committed on its branch when it ends, so the
branch alone carries it; ``merge`` brings the branch into the parent's checkout and removes
the worktree.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from cairn.errors import CairnError

GIT_TIMEOUT_S = 60


class WorktreeError(CairnError):
    """A git step failed; the message is for the model and the person."""


def git(cwd: str | Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorktreeError(f"git {args[0]} failed: {exc}") from None
    if done.returncode != 0:
        raise WorktreeError(f"git {' '.join(args[:2])} failed: {(done.stderr or done.stdout).strip()[:500]}")
    return done.stdout


def repo_root(workspace: Path) -> Path:
    try:
        return Path(git(workspace, "rev-parse", "--show-toplevel").strip())
    except WorktreeError:
        raise WorktreeError(
            f"worktree mode needs a git repository, and {workspace} is not inside one. "
            "Use mode sync or background, or run `git init` and commit first."
        ) from None


def safe_branch(name: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._/-]+", "-", name).strip("-/.")
    return cleaned or "cairn-agent"


def create(workspace: Path, path: Path, branch: str) -> str:
    """Add a worktree at ``path`` on a new ``branch`` from HEAD; returns the base commit."""
    root = repo_root(workspace)
    base = git(root, "rev-parse", "HEAD").strip()
    if path.exists():  # re-attached after a crash: the worktree is already there
        return base
    path.parent.mkdir(parents=True, exist_ok=True)
    git(root, "worktree", "add", "-b", branch, str(path), base)
    return base


def commit_all(path: Path, message: str) -> bool:
    """Commit everything the child changed in its worktree; False when nothing changed."""
    git(path, "add", "-A")
    if not git(path, "status", "--porcelain").strip():
        return False
    git(path, "-c", "user.name=cairn", "-c", "user.email=cairn@localhost", "commit", "-q", "-m", message)
    return True


def diff_summary(path: Path, base: str) -> str:
    stat = git(path, "diff", "--stat", f"{base}..HEAD").strip()
    return stat or "(no changes)"


def merge(workspace: Path, path: Path, branch: str) -> str:
    """Merge ``branch`` into the checkout at ``workspace``, then remove the worktree."""
    root = repo_root(workspace)
    out = git(root, "-c", "user.name=cairn", "-c", "user.email=cairn@localhost", "merge", "--no-edit", branch)
    remove(workspace, path)
    return out.strip()


def remove(workspace: Path, path: Path) -> None:
    """Remove a finished sub-agent's worktree; its branch (with the committed work) stays."""
    if path.exists():
        git(repo_root(workspace), "worktree", "remove", "--force", str(path))
