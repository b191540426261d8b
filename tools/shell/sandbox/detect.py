"""Which sandbox backend works on this machine: decided once per process, by running a probe.

A backend "works" when a command started under its ``read-only`` profile runs *and* its
attempt to write into a directory outside the sandbox fails.  The answer is cached.

``CAIRN_SANDBOX_BACKEND`` chooses: ``auto`` (default: bubblewrap, then Landlock), ``bwrap``,
``landlock``, or ``none`` (behave as if no backend worked: what would run sandboxed without
a person then asks).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from cairn.tools.shell.sandbox import limits
from cairn.tools.shell.sandbox.backend import Private, SandboxBackend
from cairn.tools.shell.sandbox.bwrap import BwrapBackend
from cairn.tools.shell.sandbox.landlock_backend import LandlockBackend
from cairn.tools.shell.sandbox.spec import READ_ONLY, WORKSPACE_WRITE, SandboxSpec

CHOICES = ("auto", "bwrap", "landlock", "none")
_PROBE_TIMEOUT_S = 10.0
_PROBE = '( : > "$1/escaped" ) 2>/dev/null && exit 3; exit 0'


@dataclass(frozen=True)
class BackendStatus:
    """The outcome of detection: a working backend, or why there is none."""

    backend: SandboxBackend | None
    problem: str | None = None

    @property
    def name(self) -> str:
        return self.backend.name if self.backend is not None else "none"

    @property
    def available(self) -> bool:
        return self.backend is not None


_cache: dict[str, BackendStatus] = {}
_lock = threading.Lock()


def backend_choice() -> str:
    choice = (os.environ.get("CAIRN_SANDBOX_BACKEND") or "auto").strip().lower()
    return choice if choice in CHOICES else "auto"


def detect_backend(choice: str | None = None) -> BackendStatus:
    """The working backend for ``choice`` (default: ``CAIRN_SANDBOX_BACKEND``), cached."""
    choice = choice or backend_choice()
    with _lock:
        if choice not in _cache:
            _cache[choice] = _detect(choice)
        return _cache[choice]


def _detect(choice: str) -> BackendStatus:
    if choice == "none":
        return BackendStatus(None, "sandboxing is turned off by CAIRN_SANDBOX_BACKEND=none")
    candidates: list[SandboxBackend] = []
    if choice in ("auto", "bwrap"):
        candidates.append(BwrapBackend())
    if choice in ("auto", "landlock"):
        candidates.append(LandlockBackend())
    problems: list[str] = []
    for backend in candidates:
        problem = backend.problem() or probe(backend)
        if problem is None:
            return BackendStatus(backend)
        problems.append(f"{backend.name}: {problem}")
    return BackendStatus(None, "; ".join(problems))


def probe(backend: SandboxBackend) -> str | None:
    """Run a harmless command under ``backend``'s read-only profile; ``None`` if it was confined."""
    base = tempfile.mkdtemp(prefix="cairn-sandbox-probe-")
    try:
        outside = os.path.join(base, "outside")
        private = Private(*(os.path.join(base, d) for d in ("init", "cwd", "tmp")))
        for path in (outside, *private.__dict__.values()):
            os.mkdir(path)
        spec = SandboxSpec(READ_ONLY, visible_roots=(outside,))
        launch = backend.launch(spec, cwd=outside, private=private)
        try:
            done = subprocess.run(
                [*launch.argv_prefix, "/bin/sh", "-c", _PROBE, "sh", outside],
                env={**os.environ, **launch.env},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_TIMEOUT_S,
                preexec_fn=launch.preexec,
                close_fds=True,
                pass_fds=launch.pass_fds,  # bwrap's --seccomp FD
            )
        finally:
            if launch.cleanup is not None:
                launch.cleanup()
        if os.path.exists(os.path.join(outside, "escaped")):
            return "the probe could write outside its sandbox"
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"the probe failed (exit {done.returncode}){': ' + err[-1] if err else ''}"
        return None
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return f"the probe could not run: {exc}"
    finally:
        shutil.rmtree(base, ignore_errors=True)


_gaps: dict[str, dict[str, tuple[str, ...]]] = {}


def missing_guarantees(name: str | None = None) -> dict[str, tuple[str, ...]]:
    """Per profile, the guarantees (:mod:`.guarantees`) the working backend ``name`` (default:
    the detected one) cannot give on this machine; only profiles that lack some are listed.
    A backend without ``missing_guarantees`` (bubblewrap) gives them all but the process bound,
    which needs a pids cgroup or a user other than root (:mod:`.limits`)."""
    status = detect_backend(name if name in CHOICES and name != "none" else None)
    backend = status.backend
    if backend is None:
        return {}
    with _lock:
        if backend.name not in _gaps:
            lister = getattr(backend, "missing_guarantees", None)
            found = {p: tuple(lister(p)) if lister else () for p in (READ_ONLY, WORKSPACE_WRITE)}
            if limits.process_bound() == "none":  # no pids cgroup, and uid 0 ignores RLIMIT_NPROC
                found = {p: g if "process-bound" in g else (*g, "process-bound") for p, g in found.items()}
            _gaps[backend.name] = {p: g for p, g in found.items() if g}
        return _gaps[backend.name]


def reset_cache() -> None:
    """Forget detected backends (tests that change CAIRN_SANDBOX_BACKEND)."""
    with _lock:
        _cache.clear()
        _gaps.clear()
