"""A shadow git repository that snapshots a workspace for rewind.

The repository lives in cairn's state directory (``GIT_DIR``), its work tree is the
workspace (``GIT_WORK_TREE``) and each session has its own index (``GIT_INDEX_FILE``), so
the person's own ``.git`` — HEAD, index, refs, stash — is never read for writing or
touched, and a workspace that is not a git repository works the same.  A snapshot is a
git *tree*: ``ls-files`` lists what changed since the index's last look (git's stat cache
makes an unchanged 10k-file tree cost one ``lstat`` per file), only those paths are
hashed into the index, and ``write-tree`` reuses the cached subtrees.  Nothing is copied.

``.gitignore`` files in the workspace, the user's global excludes and the workspace
repository's ``info/exclude`` are respected; files above ``max_file_bytes`` are left out
and listed as *skipped* (not restorable).  ``info/attributes`` turns off every filter and
line-ending conversion, so blobs hold the exact bytes on disk.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from cairn.atomic import atomic_write
from cairn.errors import CairnError

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
GIT_TIMEOUT_S = 60.0
#: Above this many paths, list whole trees and filter instead of passing pathspecs.
MAX_PATH_ARGS = 200
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding\n"
_CONFIG = (
    ("core.autocrlf", "false"),
    ("core.filemode", "true"),
    ("core.symlinks", "true"),
    ("core.quotepath", "false"),
    ("core.fsmonitor", "false"),
    ("core.untrackedCache", "true"),
    ("gc.auto", "0"),
    ("index.threads", "true"),
)


class SnapshotError(CairnError, RuntimeError):
    """git is missing or failed; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    tree: str
    #: Paths left out: ``{path: why}`` (too big, a nested repository, unreadable).
    skipped: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TreeEntry:
    mode: str  # "100644", "100755", "120000", "160000"
    blob: str


def shadow_dir_for(state_dir: Path, workspace: Path) -> Path:
    key = hashlib.sha256(os.fsencode(str(workspace.resolve()))).hexdigest()[:20]
    return state_dir / "snapshots" / key


class ShadowRepo:
    """Snapshots of one workspace; ``index_name`` gives each session its own stat cache."""

    def __init__(
        self, git_dir: Path, workspace: Path, *, index_name: str, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    ) -> None:
        self.git_dir = git_dir
        self.workspace = workspace.resolve()
        self.index = git_dir / "indexes" / index_name
        self.max_file_bytes = max_file_bytes
        self._git = shutil.which("git")
        self._ready = False

    # -- plumbing -------------------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.workspace),
            GIT_INDEX_FILE=str(self.index),
            GIT_OPTIONAL_LOCKS="0",
            GIT_TERMINAL_PROMPT="0",
            GIT_CONFIG_NOSYSTEM="1",
            GIT_LITERAL_PATHSPECS="1",
            LC_ALL="C",
        )
        return env

    def git(self, *args: str, data: bytes | None = None, work_tree: bool = True) -> bytes:
        if self._git is None:
            raise SnapshotError("git is not installed; snapshots (and rewind) need it")
        try:
            res = subprocess.run(
                [self._git, *args],
                input=data,
                stdin=None if data is not None else subprocess.DEVNULL,
                capture_output=True,
                cwd=self.workspace,
                env=self.env() if work_tree else _without(self.env(), "GIT_WORK_TREE", "GIT_INDEX_FILE"),
                timeout=GIT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SnapshotError(f"git {args[0]}: {exc}") from None
        if res.returncode != 0:
            err = res.stderr.decode("utf-8", "replace").strip()
            raise SnapshotError(f"git {args[0]} failed: {err[:400]}")
        return res.stdout

    def ensure(self) -> None:
        """Create the repository once (idempotent) and drop a stale index lock.

        A lock left by a process killed mid-snapshot is stale: one run of a session holds
        its run lock while it snapshots, and each session has its own index.
        """
        if not self._ready:
            if not (self.git_dir / "HEAD").exists():
                self.git_dir.parent.mkdir(parents=True, exist_ok=True)
                self.git("init", "-q", "--bare", str(self.git_dir), work_tree=False)
                for key, value in _CONFIG:
                    self.git("config", key, value, work_tree=False)
            info = self.git_dir / "info"
            info.mkdir(exist_ok=True)
            _write_if_changed(info / "attributes", _ATTRIBUTES)
            _write_if_changed(info / "exclude", self._excludes())
            self.index.parent.mkdir(exist_ok=True)
            self._seed_index()
            self._ready = True
        Path(f"{self.index}.lock").unlink(missing_ok=True)

    def _seed_index(self) -> None:
        """A new session starts from the newest index of the workspace: its stat cache is warm."""
        if self.index.exists():
            return
        others = [
            p
            for p in self.index.parent.glob("*")
            if not p.name.endswith(".lock") and not p.name.startswith(".")
        ]
        if others:
            newest = max(others, key=lambda p: p.stat().st_mtime)
            atomic_write(self.index, newest.read_bytes(), durable=False)  # a cache: no fsync

    def _excludes(self) -> str:
        """The workspace repository's ``info/exclude`` (read only), plus cairn's own."""
        lines = [".git/"]
        user_git = _find_git_dir(self.workspace)
        if user_git is not None:
            try:
                lines.append((user_git / "info" / "exclude").read_text(errors="replace"))
            except OSError:
                pass
        return "\n".join(lines) + "\n"

    # -- snapshots ------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """Record the workspace now; returns the tree id and what was left out."""
        self.ensure()
        raw = self.git("ls-files", "-z", "-m", "-d", "-o", "--exclude-standard")
        paths = {p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p}
        skipped: dict[str, str] = {}
        update: list[str] = []
        remove: list[str] = []
        for path in sorted(paths):
            if path.endswith("/"):
                skipped[path.rstrip("/")] = "a nested git repository (not snapshotted)"
                continue
            try:
                st = os.lstat(self.workspace / path)
            except (FileNotFoundError, NotADirectoryError):
                update.append(path)  # deleted: update-index --remove drops it
                continue
            except OSError as exc:
                skipped[path] = f"unreadable: {exc.strerror}"
                remove.append(path)
                continue
            if st.st_size > self.max_file_bytes:
                skipped[path] = (
                    f"larger than the snapshot size bound ({st.st_size:,} > {self.max_file_bytes:,} bytes)"
                )
                remove.append(path)
            elif not os.access(self.workspace / path, os.R_OK) and not os.path.islink(self.workspace / path):
                skipped[path] = "unreadable"
                remove.append(path)
            else:
                update.append(path)
        if update:
            self.git("update-index", "--add", "--remove", "--replace", "-z", "--stdin", data=_nul(update))
        if remove:
            self.git("update-index", "--force-remove", "-z", "--stdin", data=_nul(remove))
        tree = self.git("write-tree", "--missing-ok").decode().strip()
        return Snapshot(tree, skipped)

    def keep(self, ref: str, tree: str) -> None:
        """Point a ref at ``tree`` so a future ``git gc`` keeps it."""
        self.git("update-ref", f"refs/cairn/{ref}", tree)

    # -- reading --------------------------------------------------------------------------
    def diff(self, old: str, new: str, paths: list[str] | None = None) -> list[str]:
        """Paths whose content, mode or presence differ between two trees (sorted)."""
        if old == new:
            return []
        if paths is not None and not paths:
            return []
        args = ["diff-tree", "-r", "-z", "--no-renames", "--name-only", old, new]
        few = paths is not None and len(paths) <= MAX_PATH_ARGS
        out = self.git(*args, *(["--", *paths] if few and paths else [])).decode("utf-8", "surrogateescape")
        found = [p for p in out.split("\0") if p]
        if paths is not None and not few:
            wanted = set(paths)
            found = [p for p in found if p in wanted]
        return sorted(found)

    def entries(self, tree: str, paths: list[str]) -> dict[str, TreeEntry]:
        """``{path: TreeEntry}`` for those of ``paths`` present in ``tree``."""
        if not paths:
            return {}
        few = len(paths) <= MAX_PATH_ARGS
        out = self.git("ls-tree", "-r", "-z", "--full-tree", tree, *(["--", *paths] if few else []))
        wanted = set(paths)
        found: dict[str, TreeEntry] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, name = record.partition(b"\t")
            mode, _kind, blob = meta.decode().split()
            path = name.decode("utf-8", "surrogateescape")
            if path in wanted:
                found[path] = TreeEntry(mode, blob)
        return found

    def blobs(self, ids: list[str]) -> dict[str, bytes]:
        """The contents of blobs, read in one ``cat-file --batch``."""
        unique = sorted(set(ids))
        if not unique:
            return {}
        out = self.git("cat-file", "--batch", data=("\n".join(unique) + "\n").encode())
        found: dict[str, bytes] = {}
        pos = 0
        for blob in unique:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            size = int(header[2])
            found[blob] = out[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return found


def _write_if_changed(path: Path, text: str) -> None:
    """Atomically, and only when needed: another session may be reading it."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    atomic_write(path, text, durable=False)


def _without(env: dict[str, str], *names: str) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in names}


def _nul(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def _find_git_dir(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / ".git"
        if candidate.is_dir():
            return candidate
        if candidate.is_file():  # a linked worktree: "gitdir: PATH"
            text = candidate.read_text(errors="replace").strip()
            if text.startswith("gitdir:"):
                return Path(text[7:].strip())
            return None
    return None
