"""Finding a command's processes by walking the agent's own tree, not every process on the host."""

from __future__ import annotations

import os
import sys

import pytest

from cairn.tools.shell import process, process_tree

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper and /proc are Linux")


@pytest.fixture
def no_proc_scan(monkeypatch):
    """Fail if anything lists all of /proc (the per-command scan this replaced)."""
    real = os.scandir

    def guarded(path=".", *args, **kwargs):
        assert str(path).rstrip("/") != "/proc", "scanned all of /proc"
        return real(path, *args, **kwargs)

    monkeypatch.setattr(process.os, "scandir", guarded)


def test_the_agent_is_a_subreaper_once_a_command_ran(shell_tools):
    shell_tools.run("true")
    assert process_tree.become_subreaper() is True


def test_leftovers_in_other_groups_are_stopped_without_a_proc_scan(shell_tools, process_guard, no_proc_scan):
    result = shell_tools.run(f"set -m; {process_guard.sleep} 300 & {process_guard.sleep} 301 & echo started")
    assert "left 2 background processes running; stopped" in result.output
    assert process_guard.wait_none_marked(timeout=10) == []


def test_orphans_of_a_command_are_found_stopped_and_reaped(shell_tools, process_guard, no_proc_scan):
    def zombies() -> set[int]:
        return {pid for pid, state, _g, _s in process_tree._descendants() if state == b"Z"}

    before = zombies()  # other tests' orphans in this shared test process
    # The subshell exits at once: its sleep is an orphan, re-parented to the agent (not init).
    result = shell_tools.run(f"( {process_guard.sleep} 300 & ); echo started")
    assert "left 1 background process running; stopped" in result.output
    assert process_guard.wait_none_marked(timeout=10) == []
    assert zombies() - before == set()  # reaped, not left as a zombie of the agent


def test_foreground_commands_start_without_a_python_preexec(shell_tools):
    if process._setpriv() is None:
        pytest.skip("setpriv (util-linux) is not installed: the preexec_fn fallback is used")
    run, _ = shell_tools.services.shell.start("true", timeout_s=10)
    run.done.wait(10)
    assert run.proc.args[:3] == [process._setpriv(), "--pdeathsig", "KILL"]
