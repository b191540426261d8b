"""Starting a command in its own session (finding/stopping what is left of it:
``cairn.tools.shell.process_tree``).

Every command runs as ``/bin/bash -c COMMAND`` in a new session (so it is the leader
of a new process group, has no controlling terminal and so cannot open ``/dev/tty``
to prompt, and does not get the terminal's Ctrl-C), with stdin from ``/dev/null`` and
no file descriptors beyond 0-2.  Stopping is always done to the whole session: the
shell's process group and any other group its children made (``timeout``, ``set -m``).

Cheap per command (see docs/shell.md, "Cost"): the command is started without a Python
``preexec_fn`` (which forces ``fork`` of the whole agent instead of ``vfork``), and the
processes of its session are found by walking the agent's own process tree, not all of
``/proc`` — the agent is a child subreaper, so what a command leaves behind stays below it.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from cairn.tools.shell.process_tree import become_subreaper

if TYPE_CHECKING:
    from cairn.tools.shell.sandbox.backend import Launch

#: Graceful stop: SIGTERM to the group, this long to exit, then SIGKILL, then this long.
TERM_GRACE_S = 5.0
KILL_GRACE_S = 2.0

_PR_SET_PDEATHSIG = 1

#: Sourced by the non-interactive bash (via BASH_ENV) before the command: records the
#: directory the command ends in, chains a BASH_ENV the person had, and hides itself
#: from nested shells.  The command text itself is passed to bash untouched.
INIT_SCRIPT = """\
__cairn_cwd_file=$__CAIRN_CWD_FILE
unset BASH_ENV __CAIRN_CWD_FILE
if [ -n "${__CAIRN_BASH_ENV-}" ]; then
  export BASH_ENV="$__CAIRN_BASH_ENV"; unset __CAIRN_BASH_ENV; . "$BASH_ENV"
fi
trap 'builtin pwd -P >| "$__cairn_cwd_file" 2>/dev/null' EXIT
"""


def bash_path() -> str:
    return "/bin/bash" if os.path.exists("/bin/bash") else shutil.which("bash") or "bash"


def spawn(
    command: str,
    *,
    cwd: str,
    env: Mapping[str, str],
    init_file: str,
    cwd_file: str,
    user_bash_env: str | None = None,
    die_with_parent: bool = True,
    launch: Launch | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``command`` under bash in a new session; stdout and stderr are pipes.

    With ``launch`` (a sandbox backend's answer) bash starts inside the sandbox: behind its
    argv prefix (bubblewrap) and/or after its ``preexec`` (Landlock).
    """
    full_env = dict(env)
    full_env["BASH_ENV"] = init_file
    full_env["__CAIRN_CWD_FILE"] = cwd_file
    if user_bash_env:
        full_env["__CAIRN_BASH_ENV"] = user_bash_env
    become_subreaper()
    argv: list[str] = ["bash", "-c", command]  # $0 and error messages say "bash", as in a terminal
    executable: str | None = bash_path()
    preexecs: list[Callable[[], None] | None] = []
    if launch is not None:
        full_env.update(launch.env)
        if launch.argv_prefix:
            argv, executable = [*launch.argv_prefix, bash_path(), "-c", command], None
        preexecs.append(launch.preexec)
    if die_with_parent:
        if launch is None:  # setpriv when it can, so that subprocess can vfork (no preexec_fn)
            argv, executable, pdeathsig = _with_pdeathsig(argv, bash_path(), full_env)
        else:
            pdeathsig = _pdeathsig_preexec()
        preexecs.insert(0, pdeathsig)

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            argv,
            executable=executable,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            start_new_session=True,
            preexec_fn=_chain(*preexecs),
            pass_fds=launch.pass_fds if launch is not None else (),
        )

    try:
        return from_lasting_thread(start)  # bwrap --die-with-parent is thread-bound too
    finally:
        if launch is not None and launch.cleanup is not None:
            launch.cleanup()


_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def from_lasting_thread(start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Run ``start`` on a thread that lives as long as the process.

    "Die with the parent" (``setpriv --pdeathsig``, bwrap's ``--die-with-parent``, the
    ``prctl`` preexec) fires when the *thread* that started the child exits, not the process.
    The CLI and ``asend`` run the graph on worker threads that end after each run, so a
    background task started there would be killed with its thread.  The main thread lives as
    long as the process; elsewhere one spawner thread does.
    """
    global _spawner
    if threading.current_thread() is threading.main_thread():
        return start()
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-spawner")
    return _spawner.submit(start).result()


def _chain(*fns: Callable[[], None] | None) -> Callable[[], None] | None:
    steps = [fn for fn in fns if fn is not None]
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]

    def run() -> None:
        for step in steps:
            step()

    return run


def _with_pdeathsig(
    argv: list[str], executable: str, env: Mapping[str, str]
) -> tuple[list[str], str, Callable[[], None] | None]:
    """``argv`` made to get SIGKILL when the agent dies: through ``setpriv --pdeathsig`` when it
    runs the same bash (one exec, and ``subprocess`` can use vfork), else a ``preexec_fn``."""
    setpriv = _setpriv()
    if setpriv and _path_runs(env.get("PATH"), executable):
        return [setpriv, "--pdeathsig", "KILL", "--", *argv], setpriv, None
    return argv, executable, _pdeathsig_preexec()


@functools.lru_cache(maxsize=16)
def _path_runs(path: str | None, executable: str) -> bool:
    """Whether ``bash`` looked up in ``path`` is ``executable`` (asked once per PATH, not per command)."""
    found = shutil.which("bash", path=path)
    return bool(found) and os.path.realpath(found) == os.path.realpath(executable)


@functools.cache
def _setpriv() -> str | None:
    return shutil.which("setpriv") if sys.platform.startswith("linux") else None


def _pdeathsig_preexec() -> Callable[[], None] | None:
    """Best effort (Linux): the direct child gets SIGKILL if the agent dies without cleaning up.

    Note ``PR_SET_PDEATHSIG`` fires when the *thread* that forked the child exits, so it
    is only used for commands whose spawning thread waits for them (foreground runs).
    """
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # loaded when first needed (start-up)

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def preexec() -> None:  # runs in the child between fork and exec: keep it tiny
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # the agent died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def exit_code(returncode: int) -> tuple[int, str | None]:
    """Shell-style exit code (128+N for signal N) and the signal name, if any."""
    if returncode >= 0:
        return returncode, None
    signum = -returncode
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return 128 + signum, name
