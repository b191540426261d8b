"""The fallback backend: Landlock (kernel >= 5.13) through the ``landlockpy`` binding.

Used where bubblewrap cannot create namespaces (hardened kernels, some containers).  It is
weaker, and the docs say so:

* reads are granted on every entry of the filesystem except the hidden paths, found by
  walking from ``/`` towards each of them: their names stay listable, their contents are
  not readable; entries created later next to a hidden path are not readable either;
* writes are granted on the writable roots' entries except the protected ones (Landlock
  rights are inherited by a whole hierarchy, so a file cannot be *created* directly in a
  directory that holds a protected entry, such as the workspace root);
* TCP connect and bind are refused (Landlock ABI >= 4), but UDP is not: a DNS query to a
  resolver can still leave the machine (Landlock has no UDP control on current kernels);
* there is no PID namespace: a process that calls ``setsid()`` can outlive the command;
* ``/tmp`` stays read-only; ``TMPDIR`` points at a private writable directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from cairn.tools.shell.sandbox.backend import Launch, Private
from cairn.tools.shell.sandbox.spec import SandboxSpec


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

    def launch(self, spec: SandboxSpec, *, cwd: str, private: Private, background: bool = False) -> Launch:
        from landlockpy import AccessFS, AccessNet, Ruleset, Scope, fs_for_abi

        abi = _abi()
        handled = fs_for_abi(abi)
        read = (AccessFS.EXECUTE | AccessFS.READ_FILE | AccessFS.READ_DIR) & handled
        write = handled
        net = AccessNet.NONE if spec.network else (AccessNet.BIND_TCP | AccessNet.CONNECT_TCP)
        ruleset = Ruleset(
            handled_fs=handled,
            handled_net=net,
            scoped=Scope.ABSTRACT_UNIX_SOCKET | Scope.SIGNAL,
        )
        hidden = {os.path.realpath(p) for p in spec.hidden_paths if os.path.lexists(p)}
        _grant(ruleset, "/", read, hidden)
        protected = {os.path.realpath(p) for p in spec.read_only_paths if os.path.lexists(p)}
        for path in spec.placeholder_dirs:
            protected.add(os.path.realpath(path))
        for root in spec.writable_roots:
            _grant(ruleset, os.path.realpath(root), write, protected | hidden)
        for path in (private.cwd_dir, private.tmp_dir):
            _allow(ruleset, path, write)
        for dev in ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx"):
            _allow(ruleset, dev, read | AccessFS.WRITE_FILE | AccessFS.IOCTL_DEV)

        def preexec() -> None:
            ruleset.restrict()

        return Launch(preexec=preexec, env={"TMPDIR": private.tmp_dir}, cleanup=ruleset.close)


def _abi() -> int:
    import landlockpy

    return int(landlockpy.abi_version())


def _grant(ruleset: object, base: str, rights: object, excluded: set[str]) -> None:
    """Grant ``rights`` on ``base``'s hierarchy, minus each excluded path (and what is below it)."""
    if base in excluded:
        return
    prefix = base.rstrip("/") + "/"
    if not any(e.startswith(prefix) for e in excluded):
        _allow(ruleset, base, rights)
        return
    for entry in _entries(base):
        real = os.path.realpath(entry)
        if real != entry and _covers(real, excluded):
            continue  # a symlink into (or above) a hidden/protected path
        _grant(ruleset, entry, rights, excluded)


def _allow(ruleset: object, path: str, rights: object) -> None:
    """Add one rule; a file takes only file rights (directory rights on a file are EINVAL)."""
    from landlockpy import AccessFS

    if not os.path.isdir(path):
        file_rights = AccessFS.EXECUTE | AccessFS.WRITE_FILE | AccessFS.READ_FILE | AccessFS.TRUNCATE
        rights = rights & (file_rights | AccessFS.IOCTL_DEV)  # type: ignore[operator]
    try:
        ruleset.allow_path(path, rights)  # type: ignore[attr-defined]
    except OSError:
        pass  # vanished, or a special file Landlock refuses: it stays inaccessible


def _covers(path: str, excluded: Iterable[str]) -> bool:
    prefix = path.rstrip("/") + "/"
    return any(e == path or e.startswith(prefix) or path.startswith(e.rstrip("/") + "/") for e in excluded)


def _entries(base: str) -> list[str]:
    try:
        with os.scandir(base) as it:
            return [entry.path for entry in it]
    except OSError:
        return []
