"""Process and file-size bounds for one sandboxed command.

* **Processes**: a pids cgroup of its own (``pids.max``), joined by the child before it
  execs the sandbox, so every process the command starts counts and a fork bomb hits the
  bound, then dies with the command.  cgroup v1 ``pids`` (``/sys/fs/cgroup/pids``) or cgroup v2
  (a ``pids`` controller in a writable cgroup directory: root, or a delegated subtree).
  Without one, ``RLIMIT_NPROC`` is the fallback; the kernel does not enforce it for real uid 0
  and it counts *all* of the user's threads, so it is set to the machine's current task count
  plus the bound (looser) (:func:`process_bound` says which one applies).
* **File size**: ``RLIMIT_FSIZE`` (a larger write gets ``SIGXFSZ``/``EFBIG``).

Everything here is prepared in the parent; :meth:`Bounds.in_child` only makes system calls.
"""

from __future__ import annotations

import itertools
import os
import resource
import threading
from dataclasses import dataclass

_V1_PIDS = "/sys/fs/cgroup/pids"
_V2_ROOT = "/sys/fs/cgroup"
_counter = itertools.count(1)
_lock = threading.Lock()
_base: str | bool | None = False  # False: not looked for yet


@dataclass
class Bounds:
    """The bounds of one launch: a cgroup directory (or ``None``) and the rlimits."""

    max_processes: int
    max_file_bytes: int
    cgroup: str | None = None
    nproc: int | None = None  # the RLIMIT_NPROC fallback
    v1: bool = False  # the cgroup is a cgroup v1 one

    def in_child(self) -> None:
        """Between fork and exec: join the cgroup, set the rlimits."""
        if self.cgroup is not None:
            # cgroup v1: "0" into ``tasks`` moves only the calling (single) thread, which the
            # kernel does without the global threadgroup lock and its RCU grace period (a few
            # ms per command under load); what it starts from then on is born in the cgroup.
            fd = os.open(os.path.join(self.cgroup, "tasks" if self.v1 else "cgroup.procs"), os.O_WRONLY)
            try:
                os.write(fd, b"0" if self.v1 else str(os.getpid()).encode())
            finally:
                os.close(fd)
        elif self.nproc is not None:
            _lower(resource.RLIMIT_NPROC, self.nproc)
        _lower(resource.RLIMIT_FSIZE, self.max_file_bytes)

    def release(self) -> None:
        """After the sandbox has exited: remove the cgroup.  A zombie still populates it until
        its parent reaps it, so a busy cgroup is tried again a little later."""
        if self.cgroup is not None:
            _remove_cgroup(self.cgroup, _RETRIES)


def _lower(which: int, value: int) -> None:
    """Set soft and hard limit to ``value``, never above the hard limit already in force (only
    root may raise it)."""
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


_RETRIES = 40
_RETRY_S = 0.25


def _remove_cgroup(path: str, tries: int) -> None:
    try:
        os.rmdir(path)
    except FileNotFoundError:
        return
    except OSError:
        if tries > 0:
            timer = threading.Timer(_RETRY_S, _remove_cgroup, (path, tries - 1))
            timer.daemon = True
            timer.start()


def prepare(max_processes: int, max_file_bytes: int) -> Bounds:
    """The bounds for one command: a fresh pids cgroup when one can be made, else RLIMIT_NPROC."""
    bounds = Bounds(max_processes, max_file_bytes)
    base = _cgroup_base()
    if base is not None:
        path = os.path.join(base, f"cmd-{os.getpid()}-{next(_counter)}")
        try:
            os.mkdir(path)
            with open(os.path.join(path, "pids.max"), "w", encoding="ascii") as fh:
                fh.write(str(max_processes))
            bounds.cgroup = path
            bounds.v1 = os.path.exists(os.path.join(path, "tasks"))
            return bounds
        except OSError:
            try:
                os.rmdir(path)
            except OSError:
                pass
    if os.getuid() != 0:
        bounds.nproc = _tasks_now() + max_processes
    return bounds


def process_bound() -> str:
    """How the process bound is enforced here: ``pids cgroup``, ``RLIMIT_NPROC`` or ``none``."""
    if _cgroup_base() is not None:
        return "pids cgroup"
    return "none" if os.getuid() == 0 else "RLIMIT_NPROC"


def _cgroup_base() -> str | None:
    """A directory where this process may create pids cgroups (``.../cairn``), found once."""
    global _base
    with _lock:
        if _base is False:
            _base = _find_base()
        return _base if isinstance(_base, str) else None


def _find_base() -> str | None:
    candidates = []
    if os.path.isfile(os.path.join(_V1_PIDS, "pids.max")) or os.path.isfile(
        os.path.join(_V1_PIDS, "cgroup.procs")
    ):
        candidates.append(_V1_PIDS)
    own = _own_v2_cgroup()
    if own is not None:
        candidates.append(own)
    for parent in candidates:
        base = os.path.join(parent, "cairn")
        try:
            os.makedirs(base, exist_ok=True)
            if parent != _V1_PIDS and not _enable_pids(parent, base):
                continue
            probe = os.path.join(base, f"probe-{os.getpid()}")
            os.mkdir(probe)
            ok = os.path.exists(os.path.join(probe, "pids.max"))
            os.rmdir(probe)
            if ok:
                _sweep_stale(base)
                return base
        except OSError:
            continue
    return None


def _sweep_stale(base: str) -> None:
    """Remove the empty cgroups of cairn processes that are gone (they exited before a retry)."""
    for name in os.listdir(base):
        parts = name.split("-")
        if (
            len(parts) == 3
            and parts[0] == "cmd"
            and parts[1].isdigit()
            and not os.path.exists(f"/proc/{parts[1]}")
        ):
            try:
                os.rmdir(os.path.join(base, name))
            except OSError:
                pass


def _own_v2_cgroup() -> str | None:
    """The cgroup v2 directory to create ours under: the root, when it is writable (root)."""
    controllers = os.path.join(_V2_ROOT, "cgroup.controllers")
    try:
        with open(controllers, encoding="ascii") as fh:
            if "pids" not in fh.read().split():
                return None
    except OSError:
        return None
    return _V2_ROOT if os.access(os.path.join(_V2_ROOT, "cgroup.subtree_control"), os.W_OK) else None


def _enable_pids(parent: str, base: str) -> bool:
    """cgroup v2: the pids controller must be enabled for the children of ``parent`` and ``base``."""
    for directory in (parent, base):
        try:
            with open(os.path.join(directory, "cgroup.subtree_control"), "w", encoding="ascii") as fh:
                fh.write("+pids")
        except OSError:
            return False
    return True


def _tasks_now() -> int:
    """Every task (thread) on the machine now, from ``/proc/loadavg``: an upper bound of the
    user's (``RLIMIT_NPROC`` counts the user's threads), read in one go."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return int(fh.read().split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return 4096
