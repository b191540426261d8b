"""One run of a session at a time, across threads and processes.

A run holds an exclusive ``flock`` on a small file beside the database for as
long as it runs.  The operating system releases it when the process exits,
however it exits (SIGKILL included), so a crashed run never leaves a stale lock
and ``cairn resume`` can recover at once; a second process that tries to drive
the same session while it runs is refused instead of running a side effect twice.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path


class SessionBusy(RuntimeError):
    """The session is being run by another thread or process."""


class RunLock:
    def __init__(self, location: str, session_id: str) -> None:
        self._thread_lock = threading.Lock()
        self.path: Path | None = None
        if location != ":memory:" and "://" not in location:
            self.path = Path(location).with_name(Path(location).name + ".locks") / f"{session_id}.lock"

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        if not self._thread_lock.acquire(blocking=False):
            raise SessionBusy("this session is already running in this process (one run at a time)")
        try:
            if self.path is None:
                yield
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    raise SessionBusy(
                        f"this session is running in another process (pid {owner}); "
                        "wait for it to finish or stop it, then resume"
                    ) from None
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        finally:
            self._thread_lock.release()
