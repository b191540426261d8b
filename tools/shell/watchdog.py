"""A tiny sidecar process that stops our commands' sessions if the agent dies without cleaning up.

``close()`` and the ``atexit`` hook stop commands when the agent exits normally or on
Ctrl-C.  They cannot run when the agent is killed by SIGKILL, or by a SIGTERM nobody
handles.  For those cases each :class:`~cairn.tools.shell.state.ShellState` starts one
watchdog: a ``python -I -S`` process, in its own session, that reads ``+PGID`` /
``-PGID`` lines on stdin.  When stdin reaches EOF (the agent is gone: the kernel closed
the pipe) it stops every command still registered, SIGTERM then SIGKILL, and exits.  Each
registered id is a command's shell pid, which is also its process group and session id;
every process group found in that session is signalled, so children that moved to a group
of their own (``timeout``, ``set -m``) are stopped too.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from cairn.tools.shell.process import KILL_GRACE_S, TERM_GRACE_S

_WATCHDOG_CODE = f"""
import os, signal, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
sessions, buf = set(), b""
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
            (sessions.add if line[:1] == b"+" else sessions.discard)(int(line[1:]))
def groups_of(s):
    # Process groups of the live (non-zombie) processes in session s; None without /proc.
    try:
        names = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return None
    found = set()
    for n in names:
        try:
            with open("/proc/" + n + "/stat", "rb") as fh:
                f = fh.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(f) > 3 and int(f[3]) == s and f[0] not in (b"Z", b"X"):
            found.add(int(f[2]))
    return found
def alive(s):
    found = groups_of(s)
    if found is not None:
        return bool(found)
    try:
        os.killpg(s, 0)
        return True
    except OSError:
        return False
for sig, grace in ((signal.SIGTERM, {TERM_GRACE_S}), (signal.SIGKILL, {KILL_GRACE_S})):
    sessions = {{s for s in sessions if alive(s)}}
    for s in sessions:
        for g in {{s}} | (groups_of(s) or set()):
            try:
                os.killpg(g, sig)
            except OSError:
                pass
    end = time.monotonic() + grace
    while sessions and time.monotonic() < end:
        time.sleep(0.05)
        sessions = {{s for s in sessions if alive(s)}}
"""


class Watchdog:
    """Client side: register/unregister commands (by shell pid = session id); ``close()`` ends the sidecar."""

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
        """End the sidecar; commands still registered are stopped by it first."""
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
