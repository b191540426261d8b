"""Running one hook: a shell command (JSON on stdin) or a Python callable.

A command runs under bash with the workspace as its working directory, the secret-filtered
environment cairn builds for shell commands (plus ``CAIRN_PROJECT_DIR`` and Claude Code's
``CLAUDE_PROJECT_DIR``), an optional sandbox launch (project hooks), a timeout after which
its whole process group is killed, and its stdout/stderr cut at ``MAX_OUTPUT`` bytes each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from typing import Any

from cairn.graph.core.hooks.config import HookSpec

MAX_OUTPUT = 64 * 1024


@dataclass(frozen=True)
class RawRun:
    """What a hook did: its exit code (``None``: cut at its timeout), output, and time taken."""

    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float
    timed_out: bool = False
    #: A Python hook's return value, when it returned a dict (used instead of stdout JSON).
    returned: dict[str, Any] | None = None


class HookBlock(Exception):
    """Raised by a Python hook to block, as exit code 2 does for a command (message = reason)."""


def run_python(hook: HookSpec, payload: dict[str, Any]) -> RawRun:
    """A ``Session(hooks=...)`` callable: a dict return is its JSON output, a str its stdout,
    ``HookBlock`` exit code 2, any other exception a non-blocking error."""
    started = time.perf_counter()
    assert hook.function is not None
    try:
        value = hook.function(dict(payload))
    except HookBlock as exc:
        return RawRun(2, "", str(exc), _ms(started))
    except Exception as exc:
        return RawRun(1, "", f"{type(exc).__name__}: {exc}", _ms(started))
    if isinstance(value, dict):
        return RawRun(0, "", "", _ms(started), returned=value)
    return RawRun(0, "" if value is None else str(value), "", _ms(started))


def run_command(
    hook: HookSpec,
    payload: dict[str, Any],
    *,
    cwd: str,
    env: dict[str, str],
    launch: Any = None,
) -> RawRun:
    """Run ``hook.command`` with ``payload`` as JSON on stdin; never raises for the hook's faults."""
    from cairn.tools.shell.process import _chain, _pdeathsig_preexec, bash_path

    assert hook.command is not None
    started = time.perf_counter()
    argv = [bash_path(), "-c", hook.command]
    full_env = dict(env)
    full_env.setdefault("CAIRN_PROJECT_DIR", cwd)
    full_env.setdefault("CLAUDE_PROJECT_DIR", cwd)
    # The hook dies with cairn (a SIGKILLed agent leaves no hook running on): the spawning
    # thread waits for it, so the prctl "parent death" signal is the right tool here.
    preexec = _pdeathsig_preexec()
    pass_fds: tuple[int, ...] = ()
    if launch is not None:
        full_env.update(launch.env)
        argv = [*launch.argv_prefix, *argv]
        preexec, pass_fds = _chain(preexec, launch.preexec), launch.pass_fds
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            start_new_session=True,
            preexec_fn=preexec,
            pass_fds=pass_fds,
        )
    except OSError as exc:
        return RawRun(127, "", f"cannot start hook: {exc}", _ms(started))
    finally:
        if launch is not None and launch.cleanup is not None:
            launch.cleanup()
    out, err = _Reader(proc.stdout), _Reader(proc.stderr)
    threading.Thread(target=_feed, args=(proc, payload), daemon=True).start()
    timed_out = False
    try:
        proc.wait(timeout=hook.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        proc.wait()
    out.join()
    err.join()
    code = None if timed_out else proc.returncode
    return RawRun(code, out.text(), err.text(), _ms(started), timed_out=timed_out)


def _feed(proc: subprocess.Popen[bytes], payload: dict[str, Any]) -> None:
    data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    try:
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.close()
    except (OSError, ValueError):  # the hook did not read its input: fine
        pass


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


class _Reader:
    """Keeps the first ``MAX_OUTPUT`` bytes of a pipe and drains the rest (a chatty hook never
    blocks on a full pipe, nor fills memory)."""

    def __init__(self, pipe: Any) -> None:
        self.buf = bytearray()
        self.cut = False
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe: Any) -> None:
        with pipe:
            while chunk := pipe.read1(65536) if hasattr(pipe, "read1") else pipe.read(65536):
                room = MAX_OUTPUT - len(self.buf)
                if room > 0:
                    self.buf += chunk[:room]
                if len(chunk) > room:
                    self.cut = True

    def join(self) -> None:
        self.thread.join(timeout=5)

    def text(self) -> str:
        text = bytes(self.buf).decode("utf-8", "replace")
        return text + ("\n[output cut at 64 KiB]" if self.cut else "")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
