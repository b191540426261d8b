"""The fallback backend: Landlock (kernel >= 5.13) through ``landlockpy``, plus a seccomp filter.

Used where bubblewrap cannot create namespaces (Ubuntu 24.04 desktops restrict unprivileged
user namespaces; hardened kernels, some containers).  Without a mount, PID or network
namespace it reaches most of bubblewrap's guarantees by other means, and says which it cannot
reach on this machine (:meth:`LandlockBackend.missing_guarantees`), so the policy asks instead
of running unattended:

* **reads** are granted on ``/`` except the home directory and the hidden paths, then on the
  workspace and the home allowlist (minus hidden paths): the rest of HOME is unreadable;
* **writes** are granted on the writable roots' entries except protected, hidden and
  hard-linked ones, whether or not they exist.  Rights are inherited by a whole hierarchy, so a
  directory that holds (or would hold) a protected entry gets no right to create entries: a
  file cannot be created directly in the workspace root.  No symlink is followed when granting
  (a workspace symlink ``x -> ../../outside`` gets no rule, so it opens nothing outside);
* **network**: TCP bind/connect are refused by Landlock (ABI >= 4); on top of the shared
  filter (:mod:`.seccomp_filter`), Landlock's own seccomp filter refuses ``socket()`` for every
  family but netlink (no UDP, raw, packet or Unix socket: a pathname socket cannot be told
  apart by seccomp and there is no mount namespace to hide it, so none is created;
  ``socketpair`` still works);
* **processes**: the filter refuses ``setsid()``, so everything the command starts stays in
  its session, which the shell tool stops when the command ends; the command joins its own
  pids cgroup when one can be made (:mod:`.limits`), whose members are killed once the shell
  has exited; signals and abstract Unix sockets are scoped to the sandbox (ABI >= 6);
* **the agent**: cairn marks itself non-dumpable before the first Landlock command, so its
  ``/proc/<pid>/environ`` is unreadable to a non-root peer; run as root, the command loses
  every capability (bounding, ambient, effective, permitted) under ``no_new_privs``;
* ``/tmp`` stays read-only; ``TMPDIR`` points at a private writable directory.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import stat
import threading
from collections.abc import Callable
from typing import Any

from cairn.tools.shell.sandbox.backend import Launch, Private
from cairn.tools.shell.sandbox.guarantees import GUARANTEES, relevant
from cairn.tools.shell.sandbox.spec import SandboxSpec

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class LandlockBackend:
    name = "landlock"

    def problem(self) -> str | None:
        try:
            import landlockpy
        except ImportError:
            return "the landlockpy package is not installed"
        try:
            if not landlockpy.supported():
                return "the kernel has no Landlock (or it is not enabled in the LSM list)"
        except Exception as exc:
            return f"Landlock check failed: {exc}"
        return None

    def missing_guarantees(self, profile: str) -> tuple[str, ...]:
        """The guarantees (names of :data:`GUARANTEES`) this backend cannot give here for ``profile``."""
        from cairn.tools.shell.sandbox import limits

        missing = set()
        cgroup = limits.process_bound() == "pids cgroup"  # its members are killed after the shell
        if not seccomp_available():  # what rests on the filter, unless Landlock or a cgroup covers it
            missing.add("udp-localhost")
            if not cgroup:
                missing.add("survivor")
            if not unix_sockets_by_landlock():
                missing.add("unix-socket-home")
            if _abi() < 4:
                missing.add("tcp-localhost")
            if _abi() < 6:
                missing.add("abstract-socket")
        if not process_bound_available():
            missing.add("process-bound")
        return tuple(name for name in GUARANTEES if name in missing and relevant(name, profile))

    def launch(self, spec: SandboxSpec, *, cwd: str, private: Private, background: bool = False) -> Launch:
        from landlockpy import AccessFS, AccessNet, Ruleset, Scope, fs_for_abi

        from cairn.tools.shell.sandbox import exit_watch, limits

        protect_agent_environ()
        handled = fs_for_abi(_abi())
        read = (AccessFS.EXECUTE | AccessFS.READ_FILE | AccessFS.READ_DIR) & handled
        net = AccessNet.NONE if spec.network else (AccessNet.BIND_TCP | AccessNet.CONNECT_TCP)
        ruleset = Ruleset(
            handled_fs=handled,
            handled_net=net,
            scoped=Scope.ABSTRACT_UNIX_SOCKET | Scope.SIGNAL,
        )
        try:
            # Connecting to a pathname Unix socket (ABI >= 9): only in the private scratch directory.
            resolve_unix = getattr(AccessFS, "RESOLVE_UNIX", AccessFS.NONE) & handled
            _add_rules(ruleset, spec, private, read, handled & ~resolve_unix)
            if resolve_unix:
                _allow(ruleset, private.tmp_dir, handled)
            # Without libseccomp the command still runs (the policy asked a person first: the
            # missing guarantees are listed by missing_guarantees).
            programs = _seccomp_programs(spec) if seccomp_available() else []
            drop = _privilege_dropper()
            bounds = limits.prepare(spec.max_processes, spec.max_file_bytes)
        except BaseException:
            ruleset.close()
            raise
        report = exit_watch.PidReport()

        def preexec() -> None:  # in the child, between fork and exec
            report.in_child()
            bounds.in_child()  # joins the pids cgroup: before Landlock forbids writing it
            drop()  # sets no_new_privs: Landlock and seccomp need it without CAP_SYS_ADMIN
            ruleset.restrict()
            for program in programs:
                _install(program)

        def cleanup() -> None:  # right after the spawn
            ruleset.close()
            exit_watch.when_exited(report.pid(), lambda: _release(bounds))

        return Launch(preexec=preexec, env={"TMPDIR": private.tmp_dir}, cleanup=cleanup)


def _add_rules(ruleset: Any, spec: SandboxSpec, private: Private, read: Any, write: Any) -> None:
    from landlockpy import AccessFS

    from cairn.tools.shell.sandbox import workspace_scan

    found = workspace_scan.scan(
        spec.visible_roots,
        secret_patterns=() if spec.person_approved else spec.workspace_secrets,
        want_links=bool(spec.writable_roots),
        skip=spec.scan_skip,
    )
    hidden = {_real(p) for p in (*spec.hidden_paths, *found.secrets)}
    home = _real(spec.home) if spec.home else None
    # Reads: everything but HOME and the hidden paths, then the workspace and HOME's allowlist.
    _grant(ruleset, "/", read, hidden | ({home} if home else set()))
    for root in (*spec.visible_roots, *spec.writable_roots, *spec.home_readable):
        _grant(ruleset, _real(root), read, hidden)
    # Writes: the writable roots minus protected, hidden and hard-linked entries (present or not).
    protected = {_real(p) for p in (*spec.read_only_paths, *spec.placeholder_dirs, *found.shared_links)}
    for root in spec.writable_roots:
        _grant(ruleset, _real(root), write, protected | hidden)
    _allow(ruleset, private.init_dir, read)
    for path in (private.cwd_dir, private.tmp_dir):
        _allow(ruleset, path, write)
    for dev in ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx"):
        _allow(ruleset, dev, read | AccessFS.WRITE_FILE | AccessFS.IOCTL_DEV)


def _release(bounds: Any) -> None:
    """Once the command's shell has exited: kill what is left in its pids cgroup (a process
    there cannot have left it), then remove the cgroup."""
    if bounds.cgroup is None:
        return
    for _ in range(50):
        try:
            with open(os.path.join(bounds.cgroup, "cgroup.procs"), encoding="ascii") as fh:
                pids = [int(x) for x in fh.read().split()]
        except (OSError, ValueError):
            pids = []
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        try:
            os.rmdir(bounds.cgroup)
            return
        except FileNotFoundError:
            return
        except OSError:
            threading.Event().wait(0.02)


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


# --- privileges --------------------------------------------------------------------------------

_dumpable_lock = threading.Lock()
_dumpable_done = False


def protect_agent_environ() -> bool:
    """Make this process (cairn) non-dumpable, once: its ``/proc/<pid>/environ`` (API keys) and
    memory become unreadable to other processes of the same user without ``CAP_SYS_PTRACE``.
    A debugger can no longer attach to cairn either.  Returns whether it is in force."""
    global _dumpable_done
    with _dumpable_lock:
        if not _dumpable_done:
            try:
                prctl = ctypes.CDLL(None, use_errno=True).prctl
                _dumpable_done = prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _dumpable_done = False
        return _dumpable_done


def _privilege_dropper() -> Callable[[], None]:
    """What the child runs to lose its privileges; built in the parent (no ``dlopen`` after fork)."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    root = os.geteuid() == 0
    last_cap = _last_cap() if root else -1
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # two __user_cap_data_struct, all zero: no capability
    capset = getattr(libc, "capset", None)

    def drop() -> None:
        if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
        if not root:
            return
        for cap in range(last_cap + 1):
            prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
        prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if capset is None or capset(header, data) != 0:
            raise OSError(ctypes.get_errno() or errno.EPERM, "could not drop capabilities")

    return drop


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return 63


# --- seccomp -----------------------------------------------------------------------------------


def seccomp_available() -> bool:
    """Whether the seccomp filters can be built here (pyseccomp and libseccomp present)."""
    try:
        _seccomp_programs(SandboxSpec("read-only"))
        return True
    except Exception:  # not installed, or libseccomp.so missing
        return False


def process_bound_available() -> bool:
    """Whether a process limit holds for a command here: a pids cgroup, or ``RLIMIT_NPROC``
    (which the kernel does not enforce for uid 0, even without capabilities)."""
    from cairn.tools.shell.sandbox import limits

    return limits.process_bound() != "none"


_programs: dict[bool, bytes] = {}
_programs_lock = threading.Lock()


def _seccomp_programs(spec: SandboxSpec) -> list[bytes]:
    """The BPF programs installed in the child: the shared filter and Landlock's own.

    Raises when libseccomp or its binding is missing (the launch then fails: fail closed).
    """
    from cairn.tools.shell.sandbox import seccomp_filter

    with _programs_lock:
        if spec.network not in _programs:
            _programs[spec.network] = _landlock_program(spec.network)
    return [seccomp_filter.bpf_program(), _programs[spec.network]]


def _landlock_program(network: bool) -> bytes:
    """What Landlock adds to the shared filter, which leans on namespaces it does not have."""
    import tempfile

    import pyseccomp as sc

    own = sc.SyscallFilter(sc.ALLOW)
    refuse = sc.ERRNO(errno.EPERM)
    own.add_rule(refuse, "setsid")  # stay in the command's session: stopped with it
    if not network and unix_sockets_by_landlock():
        # Landlock (ABI >= 9) refuses connections to pathname sockets outside the scratch
        # directory and (ABI >= 6) to abstract ones: Unix sockets themselves can stay.
        for family in range(64):
            if family not in (socket.AF_UNIX, socket.AF_NETLINK):
                own.add_rule(refuse, "socket", sc.Arg(0, sc.EQ, family))
        own.add_rule(refuse, "socket", sc.Arg(0, sc.GE, 64))
    elif not network:
        # Every family but netlink: no TCP/UDP, and no Unix socket (pathname sockets of the host
        # cannot be hidden without a mount namespace, nor told apart by seccomp).
        own.add_rule(refuse, "socket", sc.Arg(0, sc.NE, socket.AF_NETLINK))
    with tempfile.TemporaryFile() as fh:
        own.export_bpf(fh)
        fh.seek(0)
        return fh.read()


def unix_sockets_by_landlock() -> bool:
    """Whether Landlock itself controls Unix socket connections here (``RESOLVE_UNIX``, ABI 9,
    and abstract-socket scoping, ABI 6); older kernels get no Unix socket at all."""
    return _abi() >= 9


def _install(program: bytes) -> None:
    from cairn.tools.shell.sandbox import seccomp_filter

    seccomp_filter.install_program(program)


# --- Landlock rules ----------------------------------------------------------------------------


def _abi() -> int:
    import landlockpy

    try:
        return int(landlockpy.abi_version())
    except Exception:
        return 0


def _grant(ruleset: Any, base: str, rights: Any, excluded: set[str]) -> None:
    """Grant ``rights`` on ``base``'s hierarchy, minus each excluded path (and what is below it).

    Symlinks get no rule (the target is governed by its own rules): following one would grant
    rights on whatever it points at, such as a directory outside the workspace.
    """
    if base in excluded:
        return
    prefix = base.rstrip("/") + "/"
    if not any(e.startswith(prefix) for e in excluded):
        _allow(ruleset, base, rights)
        return
    for entry in _entries(base):
        if os.path.islink(entry):
            continue
        _grant(ruleset, entry, rights, excluded)


def _allow(ruleset: Any, path: str, rights: Any) -> None:
    """Add one rule on ``path`` itself, never through a symlink (opened ``O_NOFOLLOW`` and handed
    to Landlock by file descriptor, so a swap after the check changes nothing).  A file takes only
    file rights (directory rights on a file are EINVAL)."""
    from landlockpy import AccessFS

    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return  # vanished: it stays inaccessible
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode):
            return
        if not stat.S_ISDIR(mode):
            file_rights = AccessFS.EXECUTE | AccessFS.WRITE_FILE | AccessFS.READ_FILE | AccessFS.TRUNCATE
            rights = rights & (file_rights | AccessFS.IOCTL_DEV)
        ruleset.allow_path(f"/proc/self/fd/{fd}" if os.path.isdir("/proc/self/fd") else path, rights)
    except OSError:
        pass  # a special file Landlock refuses: it stays inaccessible
    finally:
        os.close(fd)


def _entries(base: str) -> list[str]:
    try:
        with os.scandir(base) as it:
            return [entry.path for entry in it]
    except OSError:
        return []
