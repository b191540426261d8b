"""Atomic file replacement, the one helper every layer uses (it imports nothing of cairn).

A temporary file is written in the target's directory and put in place with ``os.replace``:
a reader, or a crash, sees the old file or the new one, never half of each.  ``durable``
(the default) also fsyncs the data and then the directory, so the new file survives a power
cut; caches that can be rebuilt pass ``durable=False``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(
    path: Path,
    data: bytes | str,
    *,
    mode: int | None = None,
    durable: bool = True,
    tmp: Path | None = None,
) -> None:
    """Replace ``path`` with ``data`` (``str`` is written as UTF-8), creating missing parents.

    ``mode``: the new file's permission bits (default: ``0o666`` less the umask, as ``open``
    gives).  ``tmp``: a fixed temporary path in the same directory, for writers that must be
    idempotent after a kill (a re-run overwrites it instead of leaving a stray file); by
    default a fresh ``.cairn-<random>.tmp`` name, short so a long file name still fits.
    The temporary file is removed when anything fails.
    """
    path = Path(path)
    parent = path.parent
    parent.mkdir(parents=True, exist_ok=True)
    if tmp is None:
        tmp = parent / f".cairn-{secrets.token_hex(6)}.tmp"
    else:
        tmp.unlink(missing_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600 if mode is not None else 0o666)
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if mode is not None:
                os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
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
