"""One running command: a monitor thread that pumps its output and ends its session.

The monitor owns the process from start to finish: it reads both pipes into bounded
captures, notices the shell exiting (without reaping it, so the session id stays
reserved), stops whatever the command left running in its session (any process group),
enforces the deadline, carries out stop requests (SIGTERM to every group of the session,
grace, SIGKILL, grace), and
finally reaps the shell and sets ``done``.  Foreground and background runs share it.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from cairn.tools.shell.capture import STDERR_LIMIT, STDOUT_LIMIT, BoundedCapture
from cairn.tools.shell.process import KILL_GRACE_S, TERM_GRACE_S, exit_code
from cairn.tools.shell.process_tree import (
    has_exited,
    live_session_members,
    reap_orphans,
    session_alive,
    signal_session,
)
from cairn.tools.shell.progress import LineFeed

#: After the shell exits, how long its pipes may stay open before leftovers are looked for.
DRAIN_GRACE_S = 0.2
_TICK_S = 0.05


def _exit_fd(pid: int) -> int | None:
    """A pidfd of ``pid`` (Linux 5.3+): select() sees it readable once the process exits."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:  # an older kernel, or a seccomp filter refusing it
        return None


class RunningCommand:
    """A started command. Status: running, exited, killed, cancelled, timed_out."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        *,
        command: str,
        cwd: str = "",
        cwd_file: str | None = None,
        timeout_s: float | None = None,
        feed: LineFeed | None = None,
        term_grace_s: float = TERM_GRACE_S,
        kill_grace_s: float = KILL_GRACE_S,
        on_finish: Callable[[RunningCommand], None] | None = None,
        spare_on_term: tuple[str, ...] = (),
        contained: bool = False,
        sandbox: str = "off",
    ) -> None:
        self.proc = proc
        self.pid = self.pgid = proc.pid
        self.command = command
        self.cwd = cwd  # where it started
        self.cwd_file = cwd_file  # where its exit trap writes the directory it ended in
        self.stdout = BoundedCapture(STDOUT_LIMIT)
        self.stderr = BoundedCapture(STDERR_LIMIT)
        self.started = time.monotonic()
        self.started_wall = time.time()
        self.ended: float | None = None
        self.deadline = None if timeout_s is None else self.started + timeout_s
        self.timeout_s = timeout_s
        #: The sandbox profile it runs in ("off", "read-only", "workspace-write").
        self.sandbox = sandbox
        #: Sandbox processes (bwrap) the graceful SIGTERM skips; SIGKILL reaches them.
        self._spare = spare_on_term
        #: In a PID namespace (bwrap): once the launcher exited, the kernel kills whatever is
        #: left in the sandbox, so there are no leftovers to look for.
        self._contained = contained
        self.status = "running"
        self.exit_code: int | None = None
        self.signal: str | None = None
        self.leftovers_stopped = 0  # processes the command left behind that were stopped
        self.escaped_output = False  # pipes held open by a process outside the session
        self.done = threading.Event()
        self._feed = feed
        self._term_grace = term_grace_s
        self._kill_grace = kill_grace_s
        self._on_finish = on_finish
        self._stop_reason: str | None = None
        self._stopped_as: str | None = None  # set when a stop hit the shell while it still ran
        self._handoff: str | None = None  # a log path: hand the pipes to a relay and stop watching
        #: Set once the output goes to the relay's log (``hand_off``); the command runs on.
        self.handed_off = threading.Event()
        self._lock = threading.Lock()
        self._exit_fd: int | None = None
        self._thread = threading.Thread(target=self._monitor, name=f"cairn-bash-{self.pid}", daemon=True)
        self._thread.start()

    # -- public ------------------------------------------------------------------------
    @property
    def duration_s(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def request_stop(self, reason: str = "killed") -> None:
        """Ask the monitor to stop the session (gracefully); returns at once."""
        with self._lock:
            if self._stop_reason is None:
                self._stop_reason = reason

    def hand_off(self, log_path: str, *, wait: float = 5.0) -> bool:
        """Keep the command running after this process exits: its output goes on into
        ``log_path`` through a detached relay process (``relay.py``) instead of into pipes
        that nobody will read. Returns False when it had already finished."""
        with self._lock:
            if self.done.is_set():
                return False
            self._handoff = log_path
        return self.handed_off.wait(wait)

    def stop(self, reason: str = "killed", *, wait: float | None = None) -> bool:
        """Stop and wait until the session is empty (default: the whole grace period)."""
        self.request_stop(reason)
        limit = wait if wait is not None else self._term_grace + self._kill_grace + 2.0
        return self.done.wait(limit)

    # -- monitor -----------------------------------------------------------------------
    def _monitor(self) -> None:
        sel = selectors.DefaultSelector()
        streams = {}
        for pipe, capture, prefix in (
            (self.proc.stdout, self.stdout, ""),
            (self.proc.stderr, self.stderr, "[stderr] "),
        ):
            if pipe is not None:
                fd = pipe.fileno()
                os.set_blocking(fd, False)
                sel.register(fd, selectors.EVENT_READ)
                streams[fd] = (capture, prefix)
        self._exit_fd = _exit_fd(self.pid)
        if self._exit_fd is not None:  # readable when the shell exits: no polling for that
            sel.register(self._exit_fd, selectors.EVENT_READ)
        exited_at: float | None = None
        stopping: str | None = None  # "term" then "kill"
        phase_end = 0.0
        try:
            while True:
                if self._handoff is not None and stopping is None and exited_at is None:
                    self._relay(sel, streams, self._handoff)
                    return
                waiting = streams or stopping or self._exit_fd is not None
                self._pump(sel, streams, _TICK_S if waiting else 0.01)
                now = time.monotonic()
                if exited_at is None and has_exited(self.pid):
                    exited_at = now
                    self._drop_exit_fd(sel)
                reason = self._stop_reason
                if stopping is None and self.deadline is not None and now >= self.deadline:
                    reason = self._stop_reason = self._stop_reason or "timed_out"
                if stopping is None and reason is not None and exited_at is None:
                    self._stopped_as = reason
                    stopping, phase_end = "term", now + self._term_grace
                    signal_session(self.pgid, signal.SIGTERM, self._spare)
                    continue
                if stopping is None and exited_at is not None:
                    if streams and now - exited_at < DRAIN_GRACE_S:
                        continue
                    if self._contained:
                        break
                    leftovers = live_session_members(self.pgid)
                    if not leftovers and not (leftovers is None and session_alive(self.pgid, self.proc)):
                        break
                    self.leftovers_stopped = len(leftovers or ())
                    stopping, phase_end = "term", now + self._term_grace
                    signal_session(self.pgid, signal.SIGTERM, self._spare)
                    continue
                if stopping is not None:
                    if not session_alive(self.pgid, self.proc):
                        break
                    if now >= phase_end:
                        if stopping == "kill":
                            break  # unkillable (D state): give up rather than hang
                        stopping, phase_end = "kill", now + self._kill_grace
                        signal_session(self.pgid, signal.SIGKILL)
        finally:
            self._drop_exit_fd(sel)
            if not self.handed_off.is_set():
                self._finish(sel, streams)

    def _drop_exit_fd(self, sel: selectors.BaseSelector) -> None:
        fd, self._exit_fd = self._exit_fd, None
        if fd is not None:
            try:
                sel.unregister(fd)
            except (KeyError, ValueError):  # (the selector was closed by a hand-off)
                pass
            os.close(fd)

    def _relay(self, sel: selectors.BaseSelector, streams: dict, log_path: str) -> None:
        """Start the relay with the pipes (what was captured so far goes first), close ours."""
        from cairn.tools.shell import relay

        with open(log_path, "ab") as log:
            for capture in (self.stdout, self.stderr):
                got = capture.snapshot()
                log.write(got.head)
                if got.omitted:
                    log.write(f"\n[... {got.omitted:,} bytes not kept ...]\n".encode())
                log.write(got.tail)
        self._drop_exit_fd(sel)
        fds = tuple(fd for fd in streams)  # the pipes still open, kept at their numbers
        for fd in fds:
            sel.unregister(fd)
        sel.close()
        relay_proc = subprocess.Popen(
            [sys.executable, "-I", relay.__file__, log_path, *map(str, fds)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C or hang-up
            pass_fds=fds,
        )
        # Reaped when it ends while this process lives (after it exits, init reaps it).
        threading.Thread(target=relay_proc.wait, name="cairn-relay-reaper", daemon=True).start()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        self.status = "kept"
        self.handed_off.set()

    def _pump(self, sel: selectors.BaseSelector, streams: dict, timeout: float) -> None:
        if not streams and self._exit_fd is None:
            time.sleep(timeout)
            return
        for key, _ in sel.select(timeout):
            fd = key.fd
            if fd not in streams:  # the shell's exit fd: the caller looks at the exit
                continue
            capture, prefix = streams[fd]
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                sel.unregister(fd)
                del streams[fd]
                continue
            capture.write(data)
            if self._feed is not None:
                self._feed.feed(data, prefix)

    def _finish(self, sel: selectors.BaseSelector, streams: dict) -> None:
        # Whatever is still buffered in the pipes; a holder outside the session is not waited for.
        end = time.monotonic() + 0.5
        while streams and time.monotonic() < end:
            self._pump(sel, streams, 0.02)
        self.escaped_output = bool(streams)
        sel.close()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        reap_orphans(self.pgid)  # leftovers re-parented to the agent and stopped above
        try:
            returncode = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:  # could not be killed; report it, reap later
            returncode = -signal.SIGKILL
        self.exit_code, self.signal = exit_code(returncode)
        self.ended = time.monotonic()
        if self._feed is not None:
            self._feed.flush_partial()
        # A stop that came after the shell had already exited on its own does not rename it.
        self.status = self._stopped_as or "exited"
        if self._on_finish is not None:
            try:
                self._on_finish(self)
            except Exception:
                pass
        self.done.set()
