"""The backend protocol: turn a :class:`SandboxSpec` into a way to start ``bash``.

A backend returns a :class:`Launch`: an argv prefix (bubblewrap), a function run in the
child before ``exec`` (Landlock), extra environment, or several of these.  ``spawn`` in
:mod:`cairn.tools.shell.process` applies it; the command text never changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from cairn.tools.shell.sandbox.spec import SandboxSpec


@dataclass(frozen=True)
class Private:
    """The agent's private files a sandboxed command needs: the init script (read-only) and the
    directory its exit trap writes the final working directory to (writable)."""

    init_dir: str
    cwd_dir: str
    tmp_dir: str  # a writable scratch directory (Landlock's stand-in for a private /tmp)


@dataclass
class Launch:
    """How to start one command under a sandbox."""

    #: Put before ``bash -c COMMAND``: e.g. ``[bwrap, ..., "--"]``.
    argv_prefix: list[str] = field(default_factory=list)
    #: Runs in the child between fork and exec (after the pdeathsig setup).
    preexec: Callable[[], None] | None = None
    #: Set in the command's environment.
    env: dict[str, str] = field(default_factory=dict)
    #: Processes of the sandbox itself (not the command): skipped by the graceful SIGTERM,
    #: because stopping them stops everything at once (bwrap's SIGKILL cascade).
    wrapper_names: tuple[str, ...] = ()
    #: Whether every process the command starts dies with it (a PID namespace): a process
    #: that left the session is still stopped.
    contains_processes: bool = False
    #: Called once the command has started (releases what ``launch`` opened).
    cleanup: Callable[[], None] | None = None
    #: File descriptors the launcher must inherit (bwrap's ``--seccomp FD``).
    pass_fds: tuple[int, ...] = ()


class SandboxBackend(Protocol):
    """A way to sandbox a command on this machine."""

    name: str

    def problem(self) -> str | None:
        """Why this backend cannot work here (missing binary, kernel), or ``None``.

        Cheap: no process is started.  :func:`cairn.tools.shell.sandbox.detect.detect_backend`
        runs a real probe on top of it.
        """
        ...

    def launch(self, spec: SandboxSpec, *, cwd: str, private: Private, background: bool = False) -> Launch:
        """The launch for one command in ``cwd``; raises ``OSError`` if it cannot be built."""
        ...
