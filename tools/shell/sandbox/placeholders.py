"""Read-only placeholders over protected names that do not exist yet (``AGENTS.md``, ``.envrc``,
``.vscode``, ``.git/config.worktree`` ...), so that a command cannot create them.

A mount needs a name to mount on, so one is created on the host for the command's lifetime:
an **empty directory** (a file placeholder would show in ``git status`` and be committed by
``git add -A``; git ignores empty directories).  Inside the sandbox an empty private tmpfs is
mounted on it (a tmpfs mount costs a tenth of a bind mount in bubblewrap), so the name cannot be
created as a file, replaced, renamed over, hard-linked or swapped for a symlink (``EISDIR``,
``EBUSY``, ``EEXIST``), and whatever is written inside it stays in the sandbox.  Missing parents are created as plain directories.  When the
last command using it has exited, the placeholder and the parents made for it are removed at
once if still empty (a placeholder left standing would be a directory where cairn's own file
tools, ``.mcp.json`` loading or a person's editor expect a file), and when cairn exits.
While they exist, a person's editor sees an empty directory at those names; a background
command holds its placeholders until it ends.

Placeholders carry the extended attribute ``user.cairn.placeholder`` where the file system
allows it, so one left behind by a crash is adopted (and removed) by the next command.
Placeholders are counted per process; two cairn processes sharing a workspace do not know each
other's, and the first to finish removes a shared one (the other's sandbox then loses that
placeholder's protection for the rest of its command): documented.
"""

from __future__ import annotations

import atexit
import os
import threading
import time

_XATTR = "user.cairn.placeholder"
_lock = threading.Lock()
_held: dict[str, int] = {}  # path -> commands using it (0: lingering)
_idle_since: dict[str, float] = {}
_at_exit = False
_made_parents: dict[str, list[str]] = {}  # placeholder -> parents created for it (deepest first)


def acquire(paths: tuple[str, ...] | list[str], roots: tuple[str, ...]) -> list[str]:
    """Make a placeholder for each missing ``path`` inside one of ``roots``; returns the ones
    this command holds (pass them to :func:`release` when it has exited)."""
    global _at_exit
    held: list[str] = []
    with _lock:
        if not _at_exit:
            atexit.register(sweep)  # cairn exiting: remove what no running command holds
            _at_exit = True
        for path in paths:
            if not _inside(path, roots) or not _inside(os.path.realpath(os.path.dirname(path)) + "/x", roots):
                continue  # outside, or its parent is a symlink out of the workspace
            if path in _held or _is_placeholder(path):
                _held[path] = _held.get(path, 0) + 1
                _idle_since.pop(path, None)
                held.append(path)
                continue
            if os.path.lexists(path):
                continue
            parents = _make_parents(os.path.dirname(path), roots)
            if parents is None:
                continue
            try:
                os.mkdir(path, 0o555)
            except OSError:
                _remove_empty(parents)
                continue
            try:
                os.setxattr(path, _XATTR, b"1", follow_symlinks=False)
            except OSError:
                pass  # no user xattrs here (tmpfs without them): no crash recovery, still works
            _held[path] = 1
            _made_parents[path] = parents
            held.append(path)
    return held


def release(paths: list[str]) -> None:
    """The command using ``paths`` has exited: those no other command holds are removed now."""
    now = time.monotonic()
    with _lock:
        for path in paths:
            left = _held.get(path, 0) - 1
            _held[path] = max(left, 0)
            if left <= 0:
                _idle_since[path] = now
        _sweep_locked(0.0)


def sweep(max_idle_s: float = 0.0) -> None:
    """Remove the placeholders unused for at least ``max_idle_s`` seconds (0: every unused one)."""
    with _lock:
        _sweep_locked(max_idle_s)


def _sweep_locked(max_idle_s: float) -> None:
    now = time.monotonic()
    parents: list[str] = []
    for path, since in list(_idle_since.items()):
        if _held.get(path, 0) == 0 and now - since >= max_idle_s:
            _idle_since.pop(path, None)
            _held.pop(path, None)
            _remove(path)
            parents += _made_parents.pop(path, [])
    # A parent made for one placeholder (``.git`` in a plain workspace) may have held others
    # when that one went: every placeholder of this sweep is gone now, so try again, deepest first.
    for parent in sorted(set(parents), key=lambda p: p.count("/"), reverse=True):
        if not any(other.startswith(parent + "/") for other in _held):
            _remove_empty([parent])


def clear_leftovers(paths: tuple[str, ...] | list[str]) -> list[str]:
    """Remove placeholders among ``paths`` that this process does not hold: left behind by a
    cairn that was killed while a command ran (marked with the xattr, still empty).  Called when
    a session starts, before anything reads those names.  Returns the paths removed."""
    removed: list[str] = []
    with _lock:
        for path in paths:
            if path not in _held and _is_placeholder(path):
                try:
                    os.rmdir(path)
                except OSError:
                    continue
                removed.append(path)
    return removed


def _remove(path: str) -> None:
    try:
        if _is_placeholder(path) or not os.listdir(path):
            os.rmdir(path)
    except OSError:
        pass  # not empty any more (a person put something there): keep it


def held() -> dict[str, int]:
    """The placeholders that exist now, with the number of commands using each (0: lingering)."""
    with _lock:
        return dict(_held)


def _is_placeholder(path: str) -> bool:
    try:
        return (
            os.path.isdir(path)
            and not os.path.islink(path)
            and os.getxattr(path, _XATTR, follow_symlinks=False) == b"1"
            and not os.listdir(path)
        )
    except OSError:
        return False


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(path.startswith(root.rstrip("/") + "/") for root in roots)


def _make_parents(directory: str, roots: tuple[str, ...]) -> list[str] | None:
    """Create the missing directories down to ``directory`` (inside a root); deepest first."""
    missing: list[str] = []
    while not os.path.isdir(directory):
        if os.path.lexists(directory) or not _inside(directory, roots):
            return None  # a file (or a dangling link) where a directory should be
        missing.append(directory)
        directory = os.path.dirname(directory)
    made: list[str] = []
    for path in reversed(missing):
        try:
            os.mkdir(path, 0o755)
        except OSError:
            _remove_empty(made[::-1])
            return None
        made.append(path)
    return made[::-1]


def _remove_empty(directories: list[str]) -> None:
    for path in directories:
        try:
            os.rmdir(path)
        except OSError:
            return
