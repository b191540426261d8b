"""The per-session shell: working directory, environment, running commands, background tasks.

One ``ShellState`` per session (``ToolServices.shell``).  It starts commands
(:meth:`start`), remembers the directory a foreground command leaves behind (never
outside the workspace: a command that ends elsewhere resets it to the root, and the
model is told), and stops everything it started on :meth:`close` - which the
CLI/session calls, and an ``atexit`` hook registered here calls if nobody did.  A
watchdog sidecar covers the agent dying without running either.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path

from cairn.errors import CairnError
from cairn.tools.shell.background import BackgroundTask, TaskInfo, TaskManager
from cairn.tools.shell.changes import GitChanges
from cairn.tools.shell.command import RunningCommand
from cairn.tools.shell.env import SecretFilter, build_env, protect_agent_environment
from cairn.tools.shell.process import INIT_SCRIPT, KILL_GRACE_S, TERM_GRACE_S, spawn
from cairn.tools.shell.progress import LineFeed
from cairn.tools.shell.sandbox import BackendStatus, Launch, Private, SandboxSpec, detect_backend
from cairn.tools.shell.watchdog import Watchdog
from cairn.tools.workspace import Workspace


class ShellClosedError(CairnError, RuntimeError):
    """The session's shell was closed; no new commands start."""


class SandboxUnavailableError(CairnError, RuntimeError):
    """A command must run sandboxed and no sandbox backend works here: it is not started."""


class ShellState:
    """Shell state shared by ``bash``, ``bash_output`` and ``kill_bash`` within one session."""

    def __init__(
        self,
        workspace: Workspace | str | os.PathLike[str],
        *,
        extra_secret_patterns=(),
        sandbox_backend: BackendStatus | None = None,
        env_overrides: Mapping[str, str] | None = None,
    ) -> None:
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        self.root: Path = self.workspace.root
        self.secrets = SecretFilter(tuple(extra_secret_patterns or ()))
        #: Variables every command gets on top of cairn's own environment (``Settings.shell.env``).
        self.env_overrides = dict(env_overrides or {})
        protect_agent_environment()  # commands must not read our keys from /proc/$PPID/environ
        #: Graceful-stop timings (tests shorten them).
        self.term_grace_s = TERM_GRACE_S
        self.kill_grace_s = KILL_GRACE_S
        self._cwd = self.root
        self._lock = threading.RLock()
        self._foreground: set[RunningCommand] = set()
        self._tasks = TaskManager()
        self._watchdog = Watchdog()
        self._tmpdir: str | None = None
        self._counter = 0
        self._closed = False
        #: Injected by tests; otherwise detected (once per process) on the first sandboxed command.
        self._sandbox_backend = sandbox_backend
        self.changes = GitChanges(self.root, self.environment()[0])
        self._atexit_hook = functools.partial(_close_at_exit, weakref.ref(self))
        atexit.register(self._atexit_hook)

    # -- working directory ---------------------------------------------------------------
    @property
    def cwd(self) -> Path:
        with self._lock:
            return self._cwd

    def display(self, path: Path | str) -> str:
        return self.workspace.display(path)

    def _usable_cwd(self) -> tuple[Path, str | None]:
        with self._lock:
            if self._cwd.is_dir() and self.workspace.contains(self._cwd):
                return self._cwd, None
            gone = self.display(self._cwd)
            self._cwd = self.root
        return self.root, f"Note: the working directory {gone} no longer exists; ran in the workspace root."

    def adopt_cwd(self, run: RunningCommand) -> str | None:
        """After a foreground command: keep the directory it ended in. Returns a line for the model."""
        try:
            with open(run.cwd_file or "", encoding="utf-8", errors="surrogateescape") as fh:
                ended = fh.read().strip()
            os.unlink(run.cwd_file or "")
        except OSError:
            return None  # killed before its exit trap ran, or it replaced the trap: unchanged
        if not ended:
            return None
        new = Path(os.path.realpath(ended))
        with self._lock:
            old = self._cwd
            if not self.workspace.contains(new):
                self._cwd = self.root
                return (
                    f"Note: the command ended in {new}, outside the workspace; "
                    f"the working directory was reset to the workspace root."
                )
            self._cwd = new
        return f"cwd is now: {self.display(new)}" if new != old else None

    # -- environment -------------------------------------------------------------------
    def environment(self, cwd: str | None = None) -> tuple[dict[str, str], list[str]]:
        """The variables commands get, and the names withheld as secrets."""
        env, withheld = build_env(secrets=self.secrets, cwd=cwd)
        env.update(self.env_overrides)
        return env, withheld

    # -- starting ----------------------------------------------------------------------
    def _private_dir(self) -> str:
        """``init/init.sh`` (read-only in a sandbox), ``cwd/`` (exit-trap files), ``tmp/``."""
        if self._tmpdir is None:
            self._tmpdir = tempfile.mkdtemp(prefix="cairn-shell-")
            for sub in ("init", "cwd", "tmp"):
                os.mkdir(os.path.join(self._tmpdir, sub), 0o700)
            with open(os.path.join(self._tmpdir, "init", "init.sh"), "w", encoding="utf-8") as fh:
                fh.write(INIT_SCRIPT)
        return self._tmpdir

    @property
    def sandbox_backend(self) -> BackendStatus:
        if self._sandbox_backend is None:
            self._sandbox_backend = detect_backend()
        return self._sandbox_backend

    def backend_name(self, spec: SandboxSpec | None) -> str | None:
        """The backend that will run a command under ``spec`` (``None``: unsandboxed)."""
        if spec is None or not spec.enabled:
            return None
        return self.sandbox_backend.name

    def _launch(
        self, spec: SandboxSpec | None, cwd: str, private: str, *, background: bool = False
    ) -> Launch | None:
        if spec is None or not spec.enabled:
            return None
        status = self.sandbox_backend
        if status.backend is None:
            raise SandboxUnavailableError(
                f"this command must run in the {spec.profile} sandbox, and no sandbox backend works "
                f"on this machine ({status.problem})"
            )
        paths = Private(*(os.path.join(private, sub) for sub in ("init", "cwd", "tmp")))
        return status.backend.launch(spec, cwd=cwd, private=paths, background=background)

    def start(
        self,
        command: str,
        *,
        timeout_s: float | None,
        background: bool = False,
        feed: LineFeed | None = None,
        sandbox: SandboxSpec | None = None,
    ) -> tuple[RunningCommand, list[str]]:
        """Start ``command`` in the current directory; returns it and notes for the model.

        ``sandbox`` confines it (``None`` or profile ``off``: no sandbox); raises
        ``SandboxUnavailableError`` when it must be confined and cannot be.
        """
        with self._lock:
            if self._closed:
                raise ShellClosedError("the shell of this session is closed")
            cwd, note = self._usable_cwd()
            self._counter += 1
            private = self._private_dir()
            cwd_file = os.path.join(private, "cwd", f"cwd-{self._counter}")
            env, _ = self.environment(str(cwd))
            launch = self._launch(sandbox, str(cwd), private, background=background)
            proc = spawn(
                command,
                cwd=str(cwd),
                env=env,
                init_file=os.path.join(private, "init", "init.sh"),
                cwd_file=cwd_file,
                user_bash_env=os.environ.get("BASH_ENV"),
                die_with_parent=not background,  # PDEATHSIG would fire when this thread ends
                launch=launch,
            )
            self._watchdog.register(proc.pid)
            run = RunningCommand(
                proc,
                command=command,
                cwd=str(cwd),
                cwd_file=cwd_file,
                timeout_s=timeout_s,
                feed=feed,
                term_grace_s=self.term_grace_s,
                kill_grace_s=self.kill_grace_s,
                on_finish=self._finished,
                spare_on_term=launch.wrapper_names if launch is not None else (),
                contained=launch.contains_processes if launch is not None else False,
                sandbox=sandbox.profile if sandbox is not None else "off",
            )
            if not background:
                self._foreground.add(run)
        return run, [note] if note else []

    def _finished(self, run: RunningCommand) -> None:
        self._watchdog.unregister(run.pgid)
        with self._lock:
            self._foreground.discard(run)

    def start_task(
        self,
        command: str,
        *,
        timeout_s: float | None,
        description: str | None = None,
        sandbox: SandboxSpec | None = None,
    ) -> BackgroundTask:
        run, _ = self.start(command, timeout_s=timeout_s, background=True, sandbox=sandbox)
        return self._tasks.add(run, description=description, cwd=self.display(run.cwd))

    # -- tasks -------------------------------------------------------------------------
    def task(self, task_id: str) -> BackgroundTask | None:
        return self._tasks.get(task_id)

    def tasks(self) -> list[TaskInfo]:
        """Every known background task, oldest first (running and recently finished)."""
        return [t.info() for t in self._tasks.all()]

    def task_ids(self) -> list[str]:
        return [t.task_id for t in self._tasks.all()]

    # -- closing -----------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def close(self, keep_running: bool = False, log_dir: str | None = None) -> list[tuple[TaskInfo, str]]:
        """Stop running commands and (unless ``keep_running``) background tasks. Idempotent.

        With ``keep_running`` the running tasks go on after this process exits: their output
        is handed to a relay that appends it to a log file in ``log_dir`` (default: this
        shell's private directory), so they do not die of SIGPIPE on their next line. Returns
        the kept tasks with their log files.
        """
        with self._lock:
            if self._closed:
                return []
            self._closed = True
            runs = list(self._foreground)
        kept: list[BackgroundTask] = []
        for task in self._tasks.running():
            if keep_running:
                kept.append(task)
            else:
                runs.append(task.run)
        for run in runs:
            run.request_stop("killed")
        for run in runs:
            run.done.wait(self.term_grace_s + self.kill_grace_s + 2.0)
        logs: list[tuple[TaskInfo, str]] = []
        for task in kept:
            self._watchdog.unregister(task.run.pgid)
            folder = log_dir or self._private_dir()
            os.makedirs(folder, exist_ok=True)
            log = os.path.join(folder, f"{task.task_id}-{task.run.pid}.log")
            if task.run.hand_off(log):
                logs.append((task.info(), log))
        self._watchdog.close()
        atexit.unregister(self._atexit_hook)
        if self._tmpdir is not None and not kept:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
        return logs


def _close_at_exit(ref: weakref.ref[ShellState]) -> None:
    state = ref()
    if state is not None:
        state.close()
