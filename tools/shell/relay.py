"""Keeps a kept background task's output going somewhere after cairn exits.

A background command writes into pipes that cairn reads. When the person leaves cairn and keeps
the task running, nobody would read those pipes any more: the command's next write would get
SIGPIPE (or block once the pipe is full), which kills most programs. So cairn hands the read
ends of the pipes to this small relay, started as its own detached process, which appends
everything to a log file until the command closes its output.

Run as a script (``python relay.py LOG FD...``) with the pipes inherited at those descriptor
numbers; it imports nothing from cairn, so it starts fast.
"""

from __future__ import annotations

import os
import selectors
import sys


def relay(log_path: str, fds: tuple[int, ...]) -> None:
    """Append what arrives on ``fds`` to ``log_path`` until every one of them is closed."""
    sel = selectors.DefaultSelector()
    for fd in fds:
        try:
            os.set_blocking(fd, True)
            sel.register(fd, selectors.EVENT_READ)
        except (OSError, ValueError):
            continue
    out = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        while sel.get_map():
            for key, _ in sel.select():
                try:
                    data = os.read(key.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fd)
                    os.close(key.fd)
                    continue
                os.write(out, data)
    finally:
        os.close(out)


if __name__ == "__main__":
    relay(sys.argv[1], tuple(int(fd) for fd in sys.argv[2:]))
