"""The host's pathname Unix sockets, from ``/proc/net/unix`` (this network namespace's).

Seccomp cannot see the path ``connect()`` is given, so a sandboxed command can reach every
socket file visible in its mount namespace.  The bubblewrap backend hides the usual places
wholesale (``/tmp``, ``/run``, the home directory, ``$XDG_RUNTIME_DIR``) and covers each
remaining listening socket listed here with ``/dev/null`` (``connect`` then fails with
``ECONNREFUSED``).  Not covered: a socket bound after the command started, and one bound in
another network namespace (a container's) on a path the sandbox can see.
"""

from __future__ import annotations

import os
import stat

_PROC_NET_UNIX = "/proc/net/unix"


def listening_paths() -> list[str]:
    """Paths of the pathname sockets bound on the host now (abstract ones start with ``@``)."""
    paths: list[str] = []
    try:
        with open(_PROC_NET_UNIX, encoding="utf-8", errors="surrogateescape") as fh:
            next(fh, None)  # header
            for line in fh:
                fields = line.split(maxsplit=7)
                if len(fields) == 8 and fields[7].startswith("/"):
                    paths.append(fields[7].rstrip("\n"))
    except OSError:
        return []
    return list(dict.fromkeys(paths))


def is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False
