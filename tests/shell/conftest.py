"""Shell test fixtures. Every test is checked for processes it left behind.

Commands that must be stopped run a *marked* ``sleep``: a symlink to sleep whose path
carries a token unique to the test, so the process can be found anywhere on the
system (an orphan reparented to init is no longer our child) by its command line.
"""

from __future__ import annotations

import shlex
import shutil
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from cairn.tools.base import ToolContext
from cairn.tools.services import ToolServices
from cairn.tools.shell.bash import BashTool
from cairn.tools.shell.bash_output import BashOutputTool
from cairn.tools.shell.kill_bash import KillBashTool
from cairn.tools.workspace import Workspace

MARK_PREFIX = "cairn-test-mark-"


@dataclass
class ProcessGuard:
    token: str
    sleep: str  # shell-quoted path of the marked sleep

    def marked(self, *, anywhere: bool = False) -> list[psutil.Process]:
        """Live processes running the marked sleep (or, ``anywhere``, with the token in any argument)."""
        found = []
        for proc in psutil.process_iter(["cmdline", "status"]):
            try:
                argv = proc.info["cmdline"] or ()
                text = " ".join(argv) if anywhere else (argv[0] if argv else "")
                if self.token in text and proc.info["status"] != psutil.STATUS_ZOMBIE:
                    found.append(proc)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return found

    def wait_marked(self, count: int, timeout: float = 5.0) -> list[psutil.Process]:
        """Wait until at least ``count`` marked processes run."""
        end = time.monotonic() + timeout
        while True:
            procs = self.marked()
            if len(procs) >= count or time.monotonic() > end:
                return procs
            time.sleep(0.02)

    def wait_none_marked(self, timeout: float = 5.0) -> list[psutil.Process]:
        end = time.monotonic() + timeout
        while True:
            procs = self.marked()
            if not procs or time.monotonic() > end:
                return procs
            time.sleep(0.02)


@pytest.fixture(autouse=True)
def process_guard(tmp_path_factory):
    """Fails the test if it leaves a child process (recursive) or a marked process behind."""
    token = f"{MARK_PREFIX}{uuid.uuid4().hex[:12]}"
    bindir = tmp_path_factory.mktemp("marked") / token
    bindir.mkdir()
    sleep = bindir / "sleep"
    sleep.symlink_to(shutil.which("sleep") or "/bin/sleep")
    guard = ProcessGuard(token=token, sleep=shlex.quote(str(sleep)))
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    yield guard
    end = time.monotonic() + 3.0
    while True:
        children = [p for p in me.children(recursive=True) if p.pid not in before]
        left = {p.pid: p for p in [*children, *guard.marked(anywhere=True)]}
        if not left or time.monotonic() > end:
            break
        time.sleep(0.05)
    if left:
        described = []
        for proc in left.values():
            try:
                described.append(f"{proc.pid} {proc.status()} {' '.join(proc.cmdline())!r}")
                proc.kill()
            except psutil.NoSuchProcess:
                continue
        if described:
            pytest.fail("processes left behind:\n" + "\n".join(described))


@dataclass
class ShellTools:
    services: ToolServices
    bash: BashTool
    output: BashOutputTool
    kill: KillBashTool
    root: Path

    def run(self, command: str, ctx: ToolContext | None = None, **args):
        return self.bash.execute({"command": command, **args}, ctx)


@pytest.fixture
def shell_tools(workspace):
    """bash, bash_output and kill_bash sharing one session; short stop grace periods."""
    ws = Workspace(workspace)
    services = ToolServices(ws)
    services.shell.term_grace_s = 1.0
    services.shell.kill_grace_s = 1.0
    yield ShellTools(
        services, BashTool(ws, services), BashOutputTool(ws, services), KillBashTool(ws, services), ws.root
    )
    services.close()
