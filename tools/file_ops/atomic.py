"""Atomic file replacement: write a temp file in the same directory, then ``os.replace``.

A reader (or a crash) sees either the old file or the new one, never half of
each.  An existing file keeps its permission bits; a new file gets the usual
``0o666 & ~umask`` (the kernel applies the umask at ``open``).

Read-only files are refused: ``os.replace`` only needs a writable directory, so
it would silently replace a file its owner made read-only.  A file with several
hard links is *not* written in place: this name gets a new file and the other
links keep the old content (as with ``sed -i`` and most editors' safe save).
Writing through the link would also change every other name, which for the
hard-linked stores of pnpm or uv means other projects' files.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path


def read_only_reason(path: Path, st: os.stat_result) -> str | None:
    """Why ``path`` must not be replaced because of its permissions, or ``None``.

    The write bits are checked as well as ``os.access``, which is always true for root.
    """
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o222 and os.access(path, os.W_OK):
        return None
    return (
        f"the file is read-only (mode {mode:04o}), so it was not changed. If it really should change, "
        "make it writable first (or ask the user)"
    )


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, creating missing parent directories.

    Raises ``PermissionError`` for a read-only file (see :func:`read_only_reason`).
    """
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    try:
        st: os.stat_result | None = path.stat()
    except FileNotFoundError:
        st = None
    if st is not None and (reason := read_only_reason(path, st)):
        raise PermissionError(errno.EACCES, reason, str(path))
    mode = stat.S_IMODE(st.st_mode) if st is not None else None
    # A short name: the file's own name plus a suffix could pass the 255-byte limit of a name.
    tmp = parent / f".cairn-{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600 if mode is not None else 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(parent)


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
