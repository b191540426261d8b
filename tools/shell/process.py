"""Starting a command in its own session, and finding/stopping what is left of it.

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

import ctypes
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


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to process group ``pgid``; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def has_exited(pid: int) -> bool:
    """Whether child ``pid`` has exited, *without* reaping it.

    Keeping the zombie keeps its pid (the group id) from being reused while the rest
    of the group is signalled.
    """
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped by someone else
        return True
    return info is not None


_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None
_subreaper_lock = threading.Lock()


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux, once); whether it is one.

    Then whatever a command leaves running is re-parented to the agent instead of init, so
    its processes are found by walking the agent's own descendants (``/proc/PID/task/TID/children``)
    however many processes the host runs.  Those orphans are reaped by ``reap_orphans``.
    """
    global _subreaper
    with _subreaper_lock:
        if _subreaper is None:
            _subreaper = False
            if sys.platform.startswith("linux") and os.path.exists(f"/proc/self/task/{os.getpid()}/children"):
                try:
                    prctl = ctypes.CDLL(None, use_errno=True).prctl
                    _subreaper = prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
                except (OSError, AttributeError):
                    _subreaper = False
        return _subreaper


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out.extend(int(x) for x in fh.read().split())
        except (OSError, ValueError):
            continue
    return out


def _stat(pid: int) -> tuple[bytes, int, int] | None:
    """(state, pgrp, session) of ``pid``, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # After "(comm)": state ppid pgrp session ... (fields 3, 4, 5, 6 of proc(5)).
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 4:
        return None
    return fields[0], int(fields[2]), int(fields[3])


def _descendants() -> list[tuple[int, bytes, int, int]]:
    """``(pid, state, pgrp, session)`` of every process below this one."""
    found: list[tuple[int, bytes, int, int]] = []
    seen: set[int] = set()
    stack = _children(os.getpid())
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        stat = _stat(pid)
        if stat is None:
            continue
        found.append((pid, *stat))
        if stat[0] not in (b"Z", b"X"):
            stack.extend(_children(pid))
    return found


def reap_orphans(sid: int) -> int:
    """Reap exited processes of session ``sid`` that were re-parented to the agent (not the shell,
    whose ``Popen`` reaps it).  Returns how many were reaped."""
    if not _subreaper:
        return 0
    reaped = 0
    for pid, state, _pgrp, session in _descendants():
        if session == sid and pid != sid and state in (b"Z", b"X"):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    reaped += 1
            except ChildProcessError:  # not our child (a grandchild zombie): its parent reaps it
                pass
    return reaped


def live_session_members(sid: int) -> list[tuple[int, int]] | None:
    """``(pid, pgid)`` of the running (non-zombie) processes in session ``sid``; ``None`` without /proc.

    As a subreaper the agent walks its own descendants; otherwise every process of ``/proc`` is read.

    A command's processes can leave its process group without leaving its session: GNU
    ``timeout`` and ``set -m`` job control call ``setpgid()``.  Only ``setsid()`` (daemons)
    leaves the session.  While any process is in the session, the kernel does not reuse
    the number ``sid`` for a new process, so the session id names exactly our leftovers.
    """
    if _subreaper:
        return [
            (pid, pgrp)
            for pid, state, pgrp, session in _descendants()
            if session == sid and state not in (b"Z", b"X")
        ]
    if not os.path.isdir("/proc/self"):
        return None
    members: list[tuple[int, int]] = []
    try:
        entries = os.scandir("/proc")
    except OSError:
        return None
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as fh:
                    stat = fh.read()
            except OSError:
                continue
            # After "(comm)": state ppid pgrp session ... (fields 3, 4, 5, 6 of proc(5)).
            fields = stat[stat.rfind(b")") + 2 :].split()
            if len(fields) > 3 and int(fields[3]) == sid and fields[0] not in (b"Z", b"X"):
                members.append((int(entry.name), int(fields[2])))
    return members


def signal_session(sid: int, sig: int, spare: tuple[str, ...] = ()) -> bool:
    """Send ``sig`` to the group ``sid`` and to every other process group of session ``sid``.

    All those groups belong to the session (``setpgid`` cannot cross sessions), so nothing
    outside the command is signalled.  False when nothing was there to signal.

    ``spare`` names processes (``comm``) that are signalled one by one *except* those: the
    sandbox's own processes, which would take the whole sandbox down with SIGKILL on SIGTERM.
    """
    if spare:
        sent = False
        for pid in spared_members(sid, spare):
            try:
                os.kill(pid, sig)
                sent = True
            except (ProcessLookupError, PermissionError):
                pass
        return sent
    sent = signal_group(sid, sig)
    for pgid in {pgid for _, pgid in live_session_members(sid) or () if pgid != sid}:
        sent = signal_group(pgid, sig) or sent
    return sent


def spared_members(sid: int, spare: tuple[str, ...]) -> list[int]:
    """Pids of session ``sid``'s live processes whose name is not in ``spare``."""
    pids = []
    for pid, _ in live_session_members(sid) or ():
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as fh:
                name = fh.read().strip()
        except OSError:
            continue
        if name not in spare:
            pids.append(pid)
    return pids


def session_alive(sid: int, leader: subprocess.Popen[bytes]) -> bool:
    """Whether any process of the session still runs (the unreaped leader's zombie does not count).

    Without /proc only the leader's process group can be checked.
    """
    members = live_session_members(sid)
    if members is not None:
        return bool(members)
    # No /proc: reap the leader first so its zombie does not answer for the group.
    if has_exited(leader.pid):
        leader.poll()
    try:
        os.killpg(sid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


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
