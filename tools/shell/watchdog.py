"""A tiny sidecar process that stops our process groups if the agent dies without cleaning up.

``close()`` and the ``atexit`` hook stop commands when the agent exits normally or on
Ctrl-C.  They cannot run when the agent is killed by SIGKILL, or by a SIGTERM nobody
handles.  For those cases each :class:`~tools.shell.state.ShellState` starts one
watchdog: a ``python -I -S`` process, in its own session, that reads ``+PGID`` /
``-PGID`` lines on stdin.  When stdin reaches EOF (the agent is gone: the kernel closed
the pipe) it stops every group still registered, SIGTERM then SIGKILL, and exits.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from tools.shell.process import KILL_GRACE_S, TERM_GRACE_S

_WATCHDOG_CODE = f"""
import os, signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
groups, buf = set(), b""
while True:
    try:
        data = os.read(0, 4096)
    except InterruptedError:
        continue
    except OSError:
        break
    if not data:
        break
    buf += data
    *lines, buf = buf.split(b"\\n")
    for line in lines:
        if line[:1] in (b"+", b"-") and line[1:].isdigit():
            (groups.add if line[:1] == b"+" else groups.discard)(int(line[1:]))
def alive(g):
    try:
        os.killpg(g, 0)
    except OSError:
        return False
    try:  # zombies waiting for init to reap them do not count
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return True
    for n in names:
        try:
            with open("/proc/" + n + "/stat", "rb") as fh:
                f = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(f) > 2 and int(f[2]) == g and f[0] not in (b"Z", b"X"):
            return True
    return False
for sig, grace in ((signal.SIGTERM, {TERM_GRACE_S}), (signal.SIGKILL, {KILL_GRACE_S})):
    groups = {{g for g in groups if alive(g)}}
    for g in groups:
        try:
            os.killpg(g, sig)
        except OSError:
            pass
    end = time.monotonic() + grace
    while groups and time.monotonic() < end:
        time.sleep(0.05)
        groups = {{g for g in groups if alive(g)}}
"""


class Watchdog:
    """Client side: register/unregister process groups; ``close()`` ends the sidecar."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._failed = False

    def _ensure(self) -> subprocess.Popen[bytes] | None:
        if self._proc is None and not self._failed:
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-S", "-c", _WATCHDOG_CODE],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    close_fds=True,
                    start_new_session=True,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                )
            except OSError:
                self._failed = True  # best effort: close()/atexit still cover normal exits
        return self._proc

    def _send(self, line: str) -> None:
        with self._lock:
            proc = self._ensure()
            if proc is None or proc.stdin is None:
                return
            try:
                proc.stdin.write(line.encode() + b"\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._failed = True

    def register(self, pgid: int) -> None:
        self._send(f"+{pgid}")

    def unregister(self, pgid: int) -> None:
        with self._lock:
            running = self._proc is not None
        if running:
            self._send(f"-{pgid}")

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def close(self) -> None:
        """End the sidecar; groups still registered are stopped by it first."""
        with self._lock:
            proc, self._proc = self._proc, None
            self._failed = True
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=TERM_GRACE_S + KILL_GRACE_S + 2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
