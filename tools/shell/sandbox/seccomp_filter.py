"""The seccomp filter every sandboxed command runs under, built with libseccomp (``pyseccomp``).

What it refuses (``EPERM`` / ``EAFNOSUPPORT``; every other system call is allowed):

* ``socket()`` of any address family except ``AF_UNIX``, ``AF_INET``, ``AF_INET6`` and
  ``AF_NETLINK`` with protocol ``NETLINK_ROUTE`` (what ``getaddrinfo`` and ``ip`` use; inside a
  network namespace it only shows the sandbox's own loopback).  So no ``AF_PACKET``,
  ``AF_BLUETOOTH``, ``AF_VSOCK``, ``AF_ALG``, ``AF_KEY``, other netlink protocols (audit,
  uevents, ``sock_diag``) ...; ``socketpair()`` outside ``AF_UNIX`` likewise;
* raw and packet sockets of ``AF_INET``/``AF_INET6`` (``SOCK_RAW``, ``SOCK_PACKET``);
* ``io_uring`` (its ``IORING_OP_SOCKET`` and friends would bypass the rules above), ``bpf``,
  ``perf_event_open``, ``userfaultfd``, ``keyctl``/``add_key``/``request_key``, ``mount``
  and the other mount-API calls, ``pivot_root``, ``chroot``, ``kexec_*``, module loading,
  ``swapon``/``swapoff``, ``reboot``, ``settimeofday``/``clock_settime``, ``acct``.

``AF_UNIX`` itself stays allowed (a ``socketpair``, a server the command binds in its own
``/tmp``): seccomp cannot read the path ``connect()`` is given.  What keeps pathname sockets of
the host out of reach is the mount namespace (see :mod:`.bwrap`: the home directory, ``/run``,
``/tmp``, ``$XDG_RUNTIME_DIR`` are private, and every other listening socket of the host is
covered); abstract sockets are private to the network namespace.

Only the native architecture's system calls are allowed: a 32-bit (``int 0x80``) or x32 call
kills the process (libseccomp's "bad architecture" action), so ``socketcall()`` cannot go round.

The program is built once per process and cached as bytes (:func:`bpf_program`); bubblewrap
loads it with ``--seccomp FD``, and the Landlock backend can install the same bytes in the child
with :func:`install_program`.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
import threading

from cairn.errors import CairnError

#: Address families a sandboxed command may create sockets in.
ALLOWED_FAMILIES = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK)
_AF_MAX = 64  # families above the kernel's AF_MAX (46 today) are refused as a range
_NETLINK_ROUTE = 0
_SOCK_TYPE_MASK = 0xF  # SOCK_NONBLOCK / SOCK_CLOEXEC are flags above it
_SOCK_RAW, _SOCK_PACKET = 3, 10
#: System calls a sandboxed command has no business with.
DENIED_SYSCALLS = (
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "keyctl",
    "add_key",
    "request_key",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "reboot",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "acct",
)

_lock = threading.Lock()
_cached: bytes | None = None


class SeccompUnavailable(CairnError, RuntimeError):
    """libseccomp (or its ``pyseccomp`` binding) is missing: no filter can be built."""


def bpf_program() -> bytes:
    """The filter as a classic BPF program (``struct sock_filter[]``), built once per process."""
    global _cached
    with _lock:
        if _cached is None:
            _cached = _build()
        return _cached


def _build() -> bytes:
    try:
        import pyseccomp as sc
    except Exception as exc:  # the binding, or the system's libseccomp.so.2 (ctypes: any error)
        raise SeccompUnavailable(f"pyseccomp/libseccomp is not available: {exc}") from exc
    refuse_family = sc.ERRNO(errno.EAFNOSUPPORT)
    refuse = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    for family in range(_AF_MAX):
        if family not in ALLOWED_FAMILIES:
            flt.add_rule(refuse_family, "socket", sc.Arg(0, sc.EQ, family))
        if family != socket.AF_UNIX:
            flt.add_rule(refuse_family, "socketpair", sc.Arg(0, sc.EQ, family))
    flt.add_rule(refuse_family, "socket", sc.Arg(0, sc.GE, _AF_MAX))
    flt.add_rule(refuse_family, "socketpair", sc.Arg(0, sc.GE, _AF_MAX))
    flt.add_rule(
        refuse_family, "socket", sc.Arg(0, sc.EQ, socket.AF_NETLINK), sc.Arg(2, sc.NE, _NETLINK_ROUTE)
    )
    for family in (socket.AF_INET, socket.AF_INET6):
        for kind in (_SOCK_RAW, _SOCK_PACKET):
            flt.add_rule(
                refuse,
                "socket",
                sc.Arg(0, sc.EQ, family),
                sc.Arg(1, sc.MASKED_EQ, _SOCK_TYPE_MASK, kind),
            )
    for name in DENIED_SYSCALLS:
        try:
            flt.add_rule(refuse, name)
        except (ValueError, RuntimeError, OSError):
            continue  # not a system call on this architecture (or unknown to this libseccomp)
    with tempfile.TemporaryFile() as fh:
        flt.export_bpf(fh)
        fh.seek(0)
        return fh.read()


def program_fd() -> int:
    """A readable file descriptor holding :func:`bpf_program` (for ``bwrap --seccomp FD``).

    A sealed-size memfd (no file on disk); the caller closes it after the launch.
    """
    data = bpf_program()
    fd = os.memfd_create("cairn-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def install_program(data: bytes) -> None:
    """Install ``data`` (from :func:`bpf_program`) on the calling thread; for a ``preexec_fn``.

    Sets ``no_new_privs`` first (the kernel requires it for an unprivileged filter).  Only
    ctypes calls, no allocation-heavy Python: it runs between ``fork`` and ``exec``.
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buf = ctypes.create_string_buffer(data, len(data))
    prog = SockFprog(len(data) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
