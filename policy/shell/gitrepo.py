"""Which repository a git command would use, and whether the workspace ships it.

``git status`` at the workspace root uses the person's own repository, whose ``.git/config`` and
hooks the agent may not write (they are protected paths).  ``git -C vendor/lib status`` or
``cd vendor/lib && git log`` may instead use a repository that came *with* the workspace: a
nested ``.git`` directory, a ``.git`` file pointing elsewhere in the workspace, or a bare
repository (``HEAD``, ``objects/``, ``refs/``).  Its config is whatever the repository's author
wrote, and git runs programs from config (``core.fsmonitor``, ``core.pager``, hooks, filters,
aliases, ``diff.external``...).  So git there always asks.
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn.policy.paths import fold

__all__ = ["shipped_repo"]


def _inside(path: Path, root: Path) -> bool:
    p, r = fold(path), fold(root).rstrip("/")
    return p == r or p.startswith(r + "/")


def _gitfile_target(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            target = line.split(":", 1)[1].strip()
            return Path(os.path.realpath(os.path.join(dotgit.parent, target)))
    return None


def shipped_repo(start: Path, root: Path) -> str | None:
    """Why git started in ``start`` would use a repository shipped inside the workspace."""
    cur = Path(os.path.realpath(start))
    while _inside(cur, root):
        dotgit = cur / ".git"
        if dotgit.is_symlink() or dotgit.exists():
            if cur != root:
                return f"{cur} has a git repository of its own"
            if dotgit.is_file() and not dotgit.is_symlink():
                target = _gitfile_target(dotgit)
                if target is not None and _inside(target, root) and not _inside(target, root / ".git"):
                    return f"{dotgit} points git at {target}, inside the workspace"
            if dotgit.is_symlink():
                target = Path(os.path.realpath(dotgit))
                if _inside(target, root):
                    return f"{dotgit} is a link to {target}, inside the workspace"
            return None
        if (cur / "HEAD").is_file() and (cur / "objects").is_dir() and (cur / "refs").is_dir():
            return f"{cur} is a bare git repository"
        if cur == root or cur.parent == cur:
            return None
        cur = cur.parent
    return None
