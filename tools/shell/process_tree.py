"""Finding and stopping what is left of a command's session: its process group and any other
group its children made, found by walking the agent's own process tree (the agent is a child
subreaper, so what a command leaves behind stays below it; see ``cairn.tools.shell.process``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading


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
                import ctypes  # loaded when first needed (start-up)

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
