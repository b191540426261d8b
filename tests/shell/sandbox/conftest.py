"""Fixtures for sandbox enforcement tests: a workspace, a fake HOME with a planted key, and a
directory outside the workspace, all under /var/tmp (not /tmp: the sandbox's private /tmp
would hide them whether or not the sandbox's own rules work).

Every probe is harmless: it writes a marker, reads the planted fake key, or connects to a
listener the test itself started on 127.0.0.1.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cairn.policy.sandbox_paths import hidden_paths, protected_in_workspace
from cairn.tools.base import RiskLevel, ToolContext
from cairn.tools.services import ToolServices
from cairn.tools.shell.bash import BashTool
from cairn.tools.shell.bash_output import BashOutputTool
from cairn.tools.shell.kill_bash import KillBashTool
from cairn.tools.shell.sandbox import BackendStatus, SandboxSpec, detect_backend
from cairn.tools.workspace import Workspace

FAKE_KEY = "-----BEGIN FAKE KEY----- cairn-sandbox-test -----END FAKE KEY-----"
BACKENDS = ("bwrap", "landlock")


@dataclass
class Area:
    base: Path
    ws: Path
    home: Path
    outside: Path


@pytest.fixture
def area(monkeypatch) -> Area:
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-sbx-", dir=_scratch_root())))
    ws, home, outside = base / "ws", base / "home", base / "outside"
    for d in (ws / ".git" / "hooks", home / ".ssh", outside):
        d.mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    (home / ".ssh" / "id_rsa").write_text(FAKE_KEY + "\n")
    (home / ".netrc").write_text("machine example.invalid login me password fake-netrc-secret\n")
    os.chmod(base, 0o755)
    monkeypatch.setenv("HOME", str(home))
    yield Area(base, ws, home, outside)
    shutil.rmtree(base, ignore_errors=True)


def _scratch_root() -> str:
    for root in ("/var/tmp", os.path.expanduser("~")):
        if os.path.isdir(root) and os.access(root, os.W_OK) and not root.startswith("/tmp"):
            return root
    pytest.skip("needs a writable directory outside /tmp (the sandbox replaces /tmp)")


@pytest.fixture(params=BACKENDS)
def backend(request) -> BackendStatus:
    status = detect_backend(request.param)
    if not status.available:
        pytest.skip(f"{request.param} does not work on this machine: {status.problem}")
    return status


def make_spec(profile: str, area: Area) -> SandboxSpec:
    """The spec the graph would build: the policy's protected and hidden lists."""
    read_only, placeholders = protected_in_workspace(area.ws)
    return SandboxSpec.for_workspace(
        profile,
        area.ws,
        read_only_paths=read_only,
        placeholder_dirs=placeholders,
        hidden_paths=hidden_paths(),
    )


class Sandboxed:
    """bash / bash_output / kill_bash of one session whose commands run under ``backend``."""

    def __init__(self, area: Area, backend: BackendStatus) -> None:
        ws = Workspace(area.ws)
        self.services = ToolServices(ws)
        self.services.__dict__["shell"] = _shell(ws, backend)
        self.bash = BashTool(ws, self.services)
        self.output = BashOutputTool(ws, self.services)
        self.kill = KillBashTool(ws, self.services)
        self.area = area

    def run(self, command: str, profile: str | None, **args):
        spec = make_spec(profile, self.area) if profile else None
        ctx = ToolContext(risk=RiskLevel.LOW, sandbox=spec)
        return self.bash.execute({"command": command, **args}, ctx)

    def close(self) -> None:
        self.services.close()


def _shell(ws: Workspace, backend: BackendStatus):
    from cairn.tools.shell.state import ShellState

    state = ShellState(ws, sandbox_backend=backend)
    state.term_grace_s = 1.0
    state.kill_grace_s = 1.0
    return state


@pytest.fixture
def sandboxed(area, backend):
    tools = Sandboxed(area, backend)
    yield tools
    tools.close()
