"""No orphan survives a timeout, a cancel, Ctrl-C, or the agent process being stopped or killed."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time

import psutil
import pytest

from cairn.tools.base import ToolContext

TREE = "{sleep} 300 & {sleep} 300; wait"  # a command whose children outlive a killed shell


def test_timeout_kills_the_whole_tree(shell_tools, process_guard):
    began = time.monotonic()
    result = shell_tools.run(TREE.format(sleep=process_guard.sleep), timeout=500)
    assert time.monotonic() - began < 3
    assert not result.ok
    assert result.error.startswith("Command timed out after 0.5s and was stopped")
    assert result.metadata["timed_out"] is True and result.metadata["exit_code"] == 143
    assert process_guard.marked() == []  # already gone when the tool returns


def test_cancel_mid_run_from_another_thread(shell_tools, process_guard):
    ctx = ToolContext()
    threading.Timer(0.4, ctx.cancel.set).start()
    began = time.monotonic()
    result = shell_tools.run("echo before; " + TREE.format(sleep=process_guard.sleep), ctx)
    assert time.monotonic() - began < 30  # not the tree's 300 s
    assert not result.ok and result.error.startswith("Command was cancelled after ")
    assert "Output so far:\nbefore\n" in result.error
    assert result.metadata["cancelled"] is True
    assert process_guard.marked() == []


def test_a_group_ignoring_sigterm_gets_sigkill_after_the_grace(shell_tools, process_guard):
    shell_tools.services.shell.term_grace_s = 0.3
    command = f"trap '' TERM; {process_guard.sleep} 300 & while :; do sleep 0.05; done"
    began = time.monotonic()
    result = shell_tools.run(command, timeout=300)
    took = time.monotonic() - began
    assert 0.55 <= took < 2.5
    assert result.metadata["signal"] == "SIGKILL" and result.metadata["exit_code"] == 137
    assert process_guard.marked() == []


def test_ctrl_c_in_the_waiting_thread_stops_the_tree(shell_tools, process_guard):
    def progress(line: str) -> None:
        if process_guard.marked():
            raise KeyboardInterrupt  # what Ctrl-C raises in the CLI's thread

    command = (
        f"{process_guard.sleep} 300 & {process_guard.sleep} 300 & while :; do echo tick; sleep 0.1; done"
    )
    with pytest.raises(KeyboardInterrupt):
        shell_tools.run(command, ToolContext(on_progress=progress), timeout=5000)
    assert process_guard.marked() == []


#: Commands whose processes leave the shell's process group (but not its session): GNU `timeout`
#: and `set -m` job control call setpgid(), so stopping the shell's group alone misses them.
OTHER_GROUPS = {
    "timeout": "cd . && timeout 300 {sleep} 300",
    "timeout-bg": "timeout 300 {sleep} 300 & {sleep} 300",
    "set-m": "set -m; {sleep} 300 & {sleep} 300",
}


@pytest.mark.parametrize("command", OTHER_GROUPS.values(), ids=OTHER_GROUPS.keys())
def test_timeout_stops_processes_in_other_groups_of_the_session(shell_tools, process_guard, command):
    result = shell_tools.run(command.format(sleep=process_guard.sleep), timeout=800)
    assert result.metadata["timed_out"] is True
    assert process_guard.marked() == []  # already gone when the tool returns


@pytest.mark.parametrize(
    "command",
    ["timeout 300 {sleep} 301 & echo started", "set -m; {sleep} 302 & echo started"],
    ids=["timeout", "set-m"],
)
def test_leftovers_in_other_groups_are_stopped_after_exit(shell_tools, process_guard, command):
    result = shell_tools.run(command.format(sleep=process_guard.sleep))
    assert result.output.startswith("started\nExit code: 0\nNote: the command left ")
    assert process_guard.marked() == []


def test_kill_bash_and_close_stop_other_groups_of_a_task(shell_tools, process_guard):
    sleep = process_guard.sleep
    shell_tools.run(f"set -m; {sleep} 300 & timeout 300 {sleep} 300 & wait", run_in_background=True)
    shell_tools.run(f"set -m; {sleep} 300 & wait", run_in_background=True)
    assert len(process_guard.wait_marked(3)) == 3
    assert shell_tools.kill.execute({"task_id": "bg-1"}).ok
    assert len(process_guard.marked()) == 1
    shell_tools.services.close()
    assert process_guard.marked() == []


AGENT = textwrap.dedent(
    """
    import sys
    from cairn.tools.services import ToolServices
    from cairn.tools.shell.bash import BashTool
    from cairn.tools.workspace import Workspace

    workspace, sleep, mode = sys.argv[1:4]
    services = ToolServices(Workspace(workspace))
    if "no-watchdog" in mode:
        services.shell._watchdog._failed = True
    tool = BashTool(services.workspace, services)
    tree = f"{sleep} 300 & {sleep} 300; wait"
    if "groups" in mode:  # children in other process groups of the command's session
        tree = f"set -m; {sleep} 300 & timeout 300 {sleep} 300; wait"
    if "background" in mode:
        tool.execute({"command": tree, "run_in_background": True})
    print("watchdog", services.shell._watchdog.pid, flush=True)
    if "exit" in mode:
        sys.exit(0)  # no close(): the atexit hook must stop the tasks
    tool.execute({"command": f"exec {sleep} 300" if "exec" in mode else tree})
    """
)


def _agent(workspace, guard, mode) -> tuple[subprocess.Popen, int | None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", AGENT, workspace, guard.sleep.strip("'"), mode],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a terminal's Ctrl-C aimed at pytest must not reach it
    )
    line = proc.stdout.readline().split()
    return proc, (int(line[1]) if len(line) == 2 and line[1] != "None" else None)


def _gone(pid: int | None, timeout: float) -> bool:
    if pid is None:
        return True
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL, signal.SIGINT], ids=lambda s: s.name)
def test_agent_stopped_or_killed_leaves_no_orphans(workspace, process_guard, sig):
    proc, watchdog = _agent(workspace, process_guard, "background")
    try:
        assert len(process_guard.wait_marked(4)) == 4  # 2 from the task, 2 from the foreground command
        proc.send_signal(sig)
        proc.wait(timeout=30)  # "it exits at all": returns as soon as it has (slow only on a loaded machine)
        assert process_guard.wait_none_marked(timeout=5) == []
        assert _gone(watchdog, timeout=5)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_watchdog_stops_other_groups_of_the_session(workspace, process_guard, sig):
    proc, watchdog = _agent(workspace, process_guard, "background groups")
    try:
        assert len(process_guard.wait_marked(4)) == 4
        proc.send_signal(sig)
        proc.wait(timeout=10)
        assert process_guard.wait_none_marked(timeout=5) == []
        assert _gone(watchdog, timeout=5)
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def test_agent_exiting_without_close_stops_tasks_via_atexit(workspace, process_guard):
    proc, _ = _agent(workspace, process_guard, "background exit no-watchdog")
    try:
        assert proc.wait(timeout=10) == 0
        assert process_guard.wait_none_marked(timeout=10) == []
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()


def test_direct_child_dies_with_a_killed_agent_even_without_the_watchdog(workspace, process_guard):
    """PR_SET_PDEATHSIG: the bash (here exec'd into the marked sleep) gets SIGKILL with the agent."""
    proc, _ = _agent(workspace, process_guard, "exec no-watchdog")
    try:
        assert len(process_guard.wait_marked(1)) == 1
        proc.kill()
        proc.wait(timeout=5)
        assert process_guard.wait_none_marked(timeout=10) == []
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
