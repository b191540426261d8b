"""Run a callback once a sandbox's launcher process has exited (not reaped: it stays ``Popen``'s).

The bubblewrap launch creates things on the host that must outlive the command and no longer
(placeholders of protected names, a pids cgroup).  ``launch`` does not see the ``Popen``; its
``preexec`` reports the child's pid through a pipe (:class:`PidReport`), and ``Launch.cleanup``
(run right after the spawn, before anyone waits for the child) hands the pid to one daemon
thread that polls pidfds.  With a PID namespace, the launcher's exit means every process of
the sandbox is gone.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

_lock = threading.Lock()
_watched: dict[int, list[Callable[[], None]]] = {}  # pidfd -> callbacks
_fd_of: dict[int, int] = {}  # pid -> its pidfd, while watched
_wake_r, _wake_w = -1, -1
_thread: threading.Thread | None = None


class PidReport:
    """A pipe the child writes its pid to between fork and exec."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()

    def in_child(self) -> None:
        """For the ``preexec``: write ``getpid()`` (the pipe closes on exec)."""
        os.write(self._w, str(os.getpid()).encode())

    def pid(self) -> int | None:
        """In the parent after the spawn: the child's pid, or ``None`` if it never ran."""
        os.close(self._w)
        try:
            data = os.read(self._r, 32)
        finally:
            os.close(self._r)
        return int(data) if data else None


def when_exited(pid: int | None, callback: Callable[[], None]) -> None:
    """Call ``callback`` (on the watcher thread) once ``pid`` has exited; now if it has."""
    if pid is None:
        _safe(callback)
        return
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:  # gone (and reaped) already
        _safe(callback)
        return
    except (OSError, AttributeError):  # no pidfd on this kernel (< 5.3): poll /proc instead
        threading.Thread(target=_poll, args=(pid, callback), daemon=True).start()
        return
    with _lock:
        _start()
        _watched.setdefault(fd, []).append(callback)
        _fd_of[pid] = fd
    os.write(_wake_w, b"x")


def _start() -> None:
    global _thread, _wake_r, _wake_w
    if _thread is not None and _thread.is_alive():
        return
    _wake_r, _wake_w = os.pipe()
    _thread = threading.Thread(target=_loop, name="cairn-sandbox-exit-watch", daemon=True)
    _thread.start()


def _loop() -> None:
    poller = select.poll()
    poller.register(_wake_r, select.POLLIN)
    registered: set[int] = set()
    while True:
        with _lock:
            for fd in _watched:
                if fd not in registered:
                    poller.register(fd, select.POLLIN)
                    registered.add(fd)
        for fd, _ in poller.poll():
            if fd == _wake_r:
                os.read(_wake_r, 512)
                continue
            poller.unregister(fd)
            registered.discard(fd)
            with _lock:
                callbacks = _watched.pop(fd, [])
                for pid in [pid for pid, watched in _fd_of.items() if watched == fd]:
                    del _fd_of[pid]
                os.close(fd)
            for callback in callbacks:
                _safe(callback)


def drain(pid: int | None = None, timeout: float = 2.0) -> None:
    """Run now, on the calling thread, the callbacks of watched launchers that have exited;
    first wait up to ``timeout`` seconds for ``pid``'s (a command that has just ended: its
    launcher may still be tearing its namespaces down).

    The bash tool calls it when a foreground command has ended, so what the command's sandbox
    made on the host (placeholders of protected names, its pids cgroup) is normally gone before
    the tool returns (else the watcher thread removes it a moment later).  The pidfds stay with the watcher, which
    closes them (a callback list left empty runs nothing there).
    """
    with _lock:  # a copy of the pidfd: the watcher may close its own meanwhile
        fd = _fd_of.get(pid) if pid is not None else None
        mine = os.dup(fd) if fd is not None else None
    if mine is not None:
        try:
            select.select([mine], [], [], timeout)
        finally:
            os.close(mine)
    due: list[Callable[[], None]] = []
    with _lock:
        for watched, callbacks in _watched.items():
            if callbacks and select.select([watched], [], [], 0)[0]:
                due += callbacks
                _watched[watched] = []
    for callback in due:
        _safe(callback)


def _poll(pid: int, callback: Callable[[], None]) -> None:
    """Without pidfds: wait until ``/proc/<pid>`` is gone (reaped: later than exit, never earlier)."""
    while os.path.exists(f"/proc/{pid}"):
        time.sleep(0.5)
    _safe(callback)


def _safe(callback: Callable[[], None]) -> None:
    try:
        callback()
    except Exception:  # cleanup is best effort; a failure must not stop the watcher
        pass
