"""Replacing a person's file atomically (``cairn.atomic``), the way the file tools need it.

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

import errno
import os
import stat
from pathlib import Path

from cairn.atomic import atomic_write as replace


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
    """Replace ``path`` with ``data`` atomically (``cairn.atomic``), keeping its permission bits.

    Raises ``PermissionError`` for a read-only file (see :func:`read_only_reason`).
    """
    try:
        st: os.stat_result | None = path.stat()
    except FileNotFoundError:
        st = None
    if st is not None and (reason := read_only_reason(path, st)):
        raise PermissionError(errno.EACCES, reason, str(path))
    replace(path, data, mode=stat.S_IMODE(st.st_mode) if st is not None else None)
