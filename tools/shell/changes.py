"""Which files a command touched, from a cheap before/after snapshot of a git workspace.

Before a command that may write (the policy did not judge it read-only), record
``git status --porcelain`` plus size and mtime of every listed file; afterwards do the
same and list the paths whose entry changed.  That catches files the command created,
modified or deleted, and files that were already dirty and changed again.  Ignored
files (build output) and changes outside the workspace are not seen.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

#: Beyond this many dirty entries, mtimes are not collected (status alone still compares).
MAX_STAT_ENTRIES = 5000
GIT_TIMEOUT_S = 5.0

Entry = tuple[str, int, int]  # (status code, size, mtime_ns); size -1 when the path is gone


@dataclass
class Snapshot:
    entries: dict[str, Entry] = field(default_factory=dict)


class GitChanges:
    """Snapshots of one workspace; paths are reported relative to the workspace root."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = root
        self._git = shutil.which("git")
        self._env = dict(env or os.environ)
        self._env.update({"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
        self._prefix: str | None = None  # the workspace's path inside the repository

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
