"""Which files a command touched, from a cheap before/after snapshot of a git workspace.

Around a command that may write (the policy did not judge it read-only), compare
``git status --porcelain`` entries plus size and mtime of every listed file, and list the paths
whose entry changed.  That catches files the command created, modified or deleted, and files
that were already dirty and changed again.  Ignored files (build output) and changes outside
the workspace are not seen.

One ``git status`` per command (it costs ~120 ms in a 13,000-file repository): the snapshot
taken *after* a command is kept, and the next command's *before* is that snapshot with its
paths stat'ed again (no git).  A path that became dirty between the two commands (another tool
or the person edited it) is not in that list; the command is taken to have changed it only if
its mtime is not older than the command's start (the kernel's coarse clock, which is what file
times come from) or it is gone.  The first full snapshot is taken in the background when the
session's first writing command is routed (:meth:`GitChanges.warm`, from ``tool_routing``), so the
first writing command runs one ``git status`` too; without a warm-up it takes a full snapshot before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Beyond this many dirty entries, mtimes are not collected (status alone still compares).
MAX_STAT_ENTRIES = 5000
GIT_TIMEOUT_S = 5.0

Entry = tuple[str, int, int]  # (status code, size, mtime_ns); size -1 when the path is gone


#: Linux's CLOCK_REALTIME_COARSE: file timestamps are taken from it (or are finer, never earlier).
_COARSE_CLOCK = getattr(time, "CLOCK_REALTIME_COARSE", 5)


@dataclass
class Snapshot:
    entries: dict[str, Entry] = field(default_factory=dict)
    #: Set on a *before* snapshot rebuilt from the previous one: when the command started (ns).
    started_ns: int | None = None


def _now_ns() -> int:
    try:
        return time.clock_gettime_ns(_COARSE_CLOCK)
    except (OSError, AttributeError):  # not Linux: a margin for coarse file timestamps
        return time.time_ns() - 20_000_000


class GitChanges:
    """Snapshots of one workspace; paths are reported relative to the workspace root."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = root
        self._git = shutil.which("git")
        self._env = dict(env or os.environ)
        self._env.update({"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
        self._prefix: str | None = None  # the workspace's path inside the repository
        self._last: Snapshot | None = None  # the latest full snapshot (taken after a command)
        self._warming: threading.Thread | None = None

    def warm(self) -> None:
        """Take the first full snapshot in a background thread (once), before the first writing command."""
        if self._warming is not None or self._last is not None:
            return
        self._warming = threading.Thread(target=self._warm, name="cairn-git-status-warmup", daemon=True)
        self._warming.start()

    def _warm(self) -> None:
        snap = self.snapshot()
        if self._last is None:
            self._last = snap

    def _join_warmup(self) -> None:
        warming = self._warming
        if warming is not None:
            warming.join(GIT_TIMEOUT_S + 1)

    def _run(self, *args: str) -> bytes | None:
        if self._git is None:
            return None
        try:
            res = subprocess.run(
                [self._git, "-c", "core.fsmonitor=false", "-C", str(self.root), *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=self._env,
                timeout=GIT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return res.stdout if res.returncode == 0 else None

    def snapshot(self) -> Snapshot | None:
        """The current state, or ``None`` when the workspace is not in a git work tree."""
        if self._prefix is None:
            if not self._may_be_in_work_tree():
                return None
            out = self._run("rev-parse", "--show-prefix")
            if out is None:
                return None
            self._prefix = out.decode("utf-8", "surrogateescape").strip()
        raw = self._run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
        if raw is None:
            return None
        fields = raw.split(b"\0")
        snap = Snapshot()
        stat_ok = len(fields) <= MAX_STAT_ENTRIES
        i = 0
        while i < len(fields):
            item = fields[i]
            i += 1
            if len(item) < 4:
                continue
            code, path = item[:2].decode(), item[3:].decode("utf-8", "surrogateescape")
            if code[0] in "RC":
                i += 1  # the rename's source path follows
            rel = path[len(self._prefix) :] if path.startswith(self._prefix) else path
            snap.entries[rel] = (code, *self._stat(rel, stat_ok))
        return snap

    def _may_be_in_work_tree(self) -> bool:
        """False when no ``.git`` is in the root or above it (and no ``GIT_DIR`` redirects git):
        then git itself would find no work tree, and a writing command in a plain directory
        does not pay for starting ``git rev-parse`` to be told so (a command may ``git init``
        later: this is asked again each time)."""
        if self._env.get("GIT_DIR") or self._env.get("GIT_WORK_TREE"):
            return True
        here = self.root.resolve()
        return any(os.path.lexists(folder / ".git") for folder in (here, *here.parents))

    def before(self) -> Snapshot | None:
        """The state before a writing command: the last snapshot re-stat'ed, or a full one."""
        self._join_warmup()
        last = self._last
        if last is None:
            return self.snapshot()
        started = _now_ns()
        stat_ok = len(last.entries) <= MAX_STAT_ENTRIES
        entries = {rel: (entry[0], *self._stat(rel, stat_ok)) for rel, entry in last.entries.items()}
        return Snapshot(entries, started_ns=started)

    def changed_since(self, before: Snapshot | None) -> list[str]:
        """Paths the command changed since ``before`` (one ``git status``); kept for the next one."""
        if before is None:
            return []
        after = self.snapshot()
        self._last = after
        if after is None:
            return []
        if before.started_ns is None:
            return changed_files(before, after)
        changed = []
        stat_ok = len(before.entries) <= MAX_STAT_ENTRIES
        for rel in before.entries.keys() | after.entries.keys():
            old, new = before.entries.get(rel), after.entries.get(rel)
            if old is not None:
                # Left the status list (reverted, committed): changed when the file itself did.
                now = new[1:] if new is not None else self._stat(rel, stat_ok)
                if (new is not None and new[0] != old[0]) or now != old[1:]:
                    changed.append(rel)
            elif new is not None and (new[1] == -1 or new[2] >= before.started_ns):
                changed.append(rel)
        return sorted(changed)

    def _stat(self, rel: str, enabled: bool) -> tuple[int, int]:
        if not enabled:
            return (0, 0)
        try:
            st = os.lstat(self.root / rel)
        except OSError:
            return (-1, 0)
        return (st.st_size, st.st_mtime_ns)


def changed_files(before: Snapshot | None, after: Snapshot | None) -> list[str]:
    """Paths whose status, size or mtime differ between two snapshots (sorted)."""
    if before is None or after is None:
        return []
    keys = before.entries.keys() | after.entries.keys()
    return sorted(k for k in keys if before.entries.get(k) != after.entries.get(k))
