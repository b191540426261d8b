"""Where cairn keeps its database: ``--db`` / ``CAIRN_DB``, else the user state directory."""

from __future__ import annotations

import os
from pathlib import Path

from cairn.userdirs import user_state_dir


def state_dir() -> Path:
    """``$CAIRN_HOME`` if set (tests, portable installs), else the platform user state dir."""
    return user_state_dir()


def worktrees_dir() -> Path:
    """Where worktree sub-agents' git worktrees go: ``$CAIRN_WORKTREES``, else ``cairn-worktrees``
    beside cairn's state directory (``~/.local/state/cairn-worktrees``).  Not inside the state
    directory itself: that one is hidden from sandboxed commands and off limits to the agent,
    while a worktree is a sub-agent's own workspace.  Never inside the person's checkout."""
    env = os.environ.get("CAIRN_WORKTREES")
    if env:
        return Path(env).expanduser()
    state = state_dir()
    return state.parent / f"{state.name}-worktrees"


def default_location() -> str:
    """The database location used when none is given."""
    env = os.environ.get("CAIRN_DB")
    if env:
        return env
    return str(state_dir() / "cairn.db")


def resolve_location(location: str | os.PathLike[str] | None) -> str:
    if location is None:
        return default_location()
    text = os.fspath(location)
    if text == ":memory:" or "://" in text:
        return text
    return str(Path(text).expanduser())


def is_postgres_url(location: str) -> bool:
    return location.startswith(("postgres://", "postgresql://"))
