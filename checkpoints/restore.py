"""Applying a restore plan to the workspace, and showing it as diffs.

Every operation is idempotent — write these exact bytes with this mode, or make this path
absent — so a rewind killed half-way is completed by applying its journaled plan again.
Writes go through a temporary file in the same directory and ``os.replace``: a file is
never seen half-written.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

from cairn.atomic import atomic_write
from cairn.checkpoints.code_rewind import FileOp
from cairn.checkpoints.shadow_repo import ShadowRepo

TMP_SUFFIX = ".cairn-rewind-tmp"
MAX_DIFF_BYTES = 256 * 1024


def apply_ops(repo: ShadowRepo, ops: list[FileOp]) -> dict[str, str]:
    """Apply ``ops``; returns ``{path: why}`` for those that failed (the rest succeeded)."""
    root = repo.workspace
    failed: dict[str, str] = {}
    blobs = repo.blobs([op.blob for op in ops if op.blob])
    # Deletions first (deepest first), so a file can come back where a directory was.
    for op in sorted((o for o in ops if o.mode is None), key=lambda o: o.path.count("/"), reverse=True):
        try:
            _remove(root / op.path)
            _prune_empty_dirs(root, Path(op.path).parent, repo, ops)
        except OSError as exc:
            failed[op.path] = f"cannot delete: {exc.strerror or exc}"
    for op in (o for o in ops if o.mode is not None):
        try:
            _write(root / op.path, blobs[op.blob or ""], op.mode or "100644")
        except (OSError, KeyError) as exc:
            failed[op.path] = f"cannot write: {getattr(exc, 'strerror', None) or exc}"
    return failed


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        import shutil

        shutil.rmtree(path)


def _prune_empty_dirs(root: Path, rel: Path, repo: ShadowRepo, ops: list[FileOp]) -> None:
    """Remove directories the rewind emptied, unless a restored file goes back into them."""
    keep = {str(Path(o.path).parent) for o in ops if o.mode is not None}
    while str(rel) not in ("", "."):
        folder = root / rel
        if any(k == str(rel) or k.startswith(f"{rel}/") for k in keep):
            return
        try:
            folder.rmdir()  # fails when not empty: then stop
        except OSError:
            return
        rel = rel.parent


def _write(path: Path, data: bytes, mode: str) -> None:
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        parent.unlink()  # a file stood where the snapshot had a directory
    parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        _remove(path)
    tmp = path.with_name(path.name + TMP_SUFFIX)  # fixed: a re-applied plan overwrites a leftover
    if mode != "120000":
        atomic_write(path, data, mode=_perms(path, executable=mode == "100755"), tmp=tmp)
        return
    tmp.unlink(missing_ok=True)
    os.symlink(os.fsdecode(data), tmp)
    os.replace(tmp, path)


def _perms(path: Path, *, executable: bool) -> int:
    """Git records only the executable bit: keep a surviving file's other bits, else the umask's."""
    umask = os.umask(0)
    os.umask(umask)
    try:
        st = os.lstat(path)
        perms = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~umask
    except OSError:
        perms = 0o666 & ~umask
    if executable:
        return perms | (perms & 0o444) >> 2 | 0o100
    return perms & ~0o111


def diffs(repo: ShadowRepo, ops: list[FileOp]) -> dict[str, str]:
    """A unified diff per path: the file now → the file after the restore."""
    blobs = repo.blobs([op.blob for op in ops if op.blob])
    out: dict[str, str] = {}
    for op in ops:
        path = repo.workspace / op.path
        try:
            now = (
                os.fsencode(os.readlink(path))
                if path.is_symlink()
                else path.read_bytes()
                if path.is_file()
                else None
            )
        except OSError:
            now = None
        after = blobs.get(op.blob or "") if op.mode else None
        out[op.path] = _unified(op.path, now, after)
    return out


def _unified(name: str, old: bytes | None, new: bytes | None) -> str:
    if old is not None and new is not None and old == new:
        return f"(mode change only: {name})\n"
    for data in (old, new):
        if data is not None and (b"\0" in data[:8192] or len(data) > MAX_DIFF_BYTES):
            return f"Binary or large file {name} {'deleted' if new is None else 'restored'}\n"
    a = (old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    b = (new or b"").decode("utf-8", "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(
        a,
        b,
        fromfile=f"a/{name}" if old is not None else "/dev/null",
        tofile=f"b/{name}" if new is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
