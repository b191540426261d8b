"""Background tasks: start, incremental reads, kill, timeout, listing, session close."""

from __future__ import annotations

import itertools
import os
import signal
import threading
import time
from pathlib import Path

from cairn.tools.shell import bash_output
from cairn.tools.shell.state import ShellState


def _wait_done(shell_tools, task_id, timeout=5.0):
    task = shell_tools.services.shell.task(task_id)
    assert task is not None and task.run.done.wait(timeout)
    return task


def test_start_returns_a_task_id_at_once(shell_tools, process_guard):
    began = time.monotonic()
    result = shell_tools.run(f"{process_guard.sleep} 300", run_in_background=True)
    assert time.monotonic() - began < 30  # not the command's 300 s (a bound a loaded machine keeps)
    assert result.ok and result.metadata["task_id"] == "bg-1"
    assert result.output.startswith("Started background task bg-1 (pid ")
    assert 'bash_output(task_id="bg-1")' in result.output and 'kill_bash(task_id="bg-1")' in result.output
    assert len(process_guard.wait_marked(1)) == 1
    killed = shell_tools.kill.execute({"task_id": "bg-1"})
    assert killed.ok and killed.metadata["status"] == "killed"
    assert process_guard.wait_none_marked(timeout=10) == []


def _wait_output(shell_tools, task_id, stdout_bytes, stderr_bytes=0, timeout=5.0):
    run = shell_tools.services.shell.task(task_id).run
    end = time.monotonic() + timeout
    while run.stdout.total < stdout_bytes or run.stderr.total < stderr_bytes:
        assert time.monotonic() < end, "the task did not produce its output in time"
        time.sleep(0.01)


GATE = "while [ ! -e go ]; do sleep 0.02; done"  # the task waits until the test creates ./go


def test_output_is_read_incrementally_with_status_and_exit_code(shell_tools):
    shell_tools.run(f"echo first; echo oops >&2; {GATE}; echo second; exit 7", run_in_background=True)
    _wait_output(shell_tools, "bg-1", 6, 5)
    first = shell_tools.output.execute({"task_id": "bg-1"})
    assert first.output.startswith("Task bg-1: running (pid ")
    assert first.output.endswith("first\n[stderr] oops")
    (shell_tools.root / "go").touch()
    _wait_done(shell_tools, "bg-1")
    second = shell_tools.output.execute({"task_id": "bg-1"})
    assert second.output.startswith("Task bg-1: exited with code 7 after ")
    assert second.output.endswith("\nsecond")  # only what is new
    assert second.metadata["exit_code"] == 7 and second.metadata["status"] == "exited"
    third = shell_tools.output.execute({"task_id": "bg-1"})
    assert third.output.endswith("(no new output)")


def test_a_character_split_between_reads_is_held_back(shell_tools):
    zhong = "中".encode()
    first_part = "".join(f"\\x{b:02x}" for b in zhong[:2])
    last_part = f"\\x{zhong[2]:02x}"
    shell_tools.run(f"printf 'a{first_part}'; {GATE}; printf '{last_part}b'", run_in_background=True)
    _wait_output(shell_tools, "bg-1", 3)
    first = shell_tools.output.execute({"task_id": "bg-1"})
    assert first.output.endswith("\na")
    (shell_tools.root / "go").touch()
    _wait_done(shell_tools, "bg-1")
    second = shell_tools.output.execute({"task_id": "bg-1"})
    assert second.output.endswith("\n中b")


def test_filter_shows_matching_lines_only(shell_tools):
    shell_tools.run("printf 'GET /a 200\\nGET /b 500\\nGET /c 200\\n'", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    result = shell_tools.output.execute({"task_id": "bg-1", "filter": " 500$"})
    assert result.output.splitlines()[1:] == ["GET /b 500"]
    bad = shell_tools.output.execute({"task_id": "bg-1", "filter": "("})
    assert not bad.ok and "regular expression" in bad.error


def test_a_catastrophic_filter_is_stopped_by_its_time_budget(shell_tools, monkeypatch):
    """A backtracking filter must not freeze the agent: it gets a budget, then a clear error,
    and the output it was run on is not consumed (an unfiltered read still returns it)."""
    monkeypatch.setattr(bash_output, "FILTER_BUDGET_S", 0.3)
    shell_tools.run("printf 'x%.0s' $(seq 3000); echo; echo after", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    began = time.monotonic()
    result = shell_tools.output.execute({"task_id": "bg-1", "filter": "(x+x+)+y"})
    assert time.monotonic() - began < 20  # the pattern alone would run for ages
    assert not result.ok and "filter" in result.error and "0.3" in result.error
    again = shell_tools.output.execute({"task_id": "bg-1"})
    assert again.output.rstrip().endswith("after")


def test_other_threads_run_while_a_filter_matches(shell_tools, monkeypatch):
    """The matcher releases the GIL, so the agent's other threads are not frozen meanwhile."""
    monkeypatch.setattr(bash_output, "FILTER_BUDGET_S", 2.0)
    shell_tools.run("printf 'x%.0s' $(seq 3000); echo", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        shell_tools.output.execute({"task_id": "bg-1", "filter": "(x+x+)+y"})
    finally:
        stop.set()
        ticker.join()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) > 20 and max(gaps) < 1.0  # holding the GIL would make one gap of ~2 s


def test_task_past_its_timeout_is_stopped(shell_tools, process_guard):
    result = shell_tools.run(
        f"{process_guard.sleep} 300 & {process_guard.sleep} 300; wait", run_in_background=True, timeout=300
    )
    assert "stopped after 0.3s" in result.output
    task = _wait_done(shell_tools, "bg-1")
    assert task.status == "timed_out"
    status = shell_tools.output.execute({"task_id": "bg-1"})
    assert status.output.startswith("Task bg-1: timed out after 0.3s")
    assert process_guard.wait_none_marked(timeout=10) == []


def test_background_without_timeout_keeps_running(shell_tools, process_guard):
    shell_tools.run(f"{process_guard.sleep} 300", run_in_background=True)
    assert shell_tools.services.shell.task("bg-1").run.timeout_s is None
    shell_tools.kill.execute({"task_id": "bg-1"})


def test_unknown_ids_list_the_known_ones(shell_tools):
    assert "none have been started" in shell_tools.output.execute({"task_id": "bg-1"}).error
    shell_tools.run("true", run_in_background=True)
    assert "Known tasks: bg-1" in shell_tools.kill.execute({"task_id": "bg-7"}).error


def test_killing_a_finished_task_says_so(shell_tools):
    shell_tools.run("exit 0", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    result = shell_tools.kill.execute({"task_id": "bg-1"})
    assert result.ok and "nothing to stop" in result.output


def test_tasks_are_listed_for_the_cli(shell_tools, process_guard):
    shell_tools.run("echo done", run_in_background=True, description="quick one")
    shell_tools.run(f"{process_guard.sleep} 300", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    infos = shell_tools.services.shell.tasks()
    assert [(t.task_id, t.status, t.description) for t in infos] == [
        ("bg-1", "exited", "quick one"),
        ("bg-2", "running", None),
    ]
    assert infos[0].to_dict()["stdout_bytes"] == 5 and infos[0].exit_code == 0


def test_background_cd_does_not_move_the_session(shell_tools):
    (shell_tools.root / "sub").mkdir()
    shell_tools.run("cd sub && pwd", run_in_background=True)
    _wait_done(shell_tools, "bg-1")
    assert shell_tools.services.shell.cwd == shell_tools.root


def test_session_close_stops_running_tasks(shell_tools, process_guard):
    shell_tools.run(f"{process_guard.sleep} 300 & {process_guard.sleep} 300; wait", run_in_background=True)
    assert len(process_guard.wait_marked(2)) == 2
    shell_tools.services.close()
    assert process_guard.wait_none_marked(timeout=10) == []
    assert shell_tools.services.shell.tasks()[0].status == "killed"


def test_close_keep_running_leaves_tasks_alone(workspace, process_guard):
    state = ShellState(workspace)
    task = state.start_task(f"{process_guard.sleep} 300", timeout_s=None)
    assert len(process_guard.wait_marked(1)) == 1
    state.close(keep_running=True)
    time.sleep(0.3)
    assert len(process_guard.marked()) == 1  # the watchdog did not stop it either
    os.killpg(task.run.pgid, signal.SIGTERM)  # the person's job now; clean up for the test
    task.run.proc.wait(3)


def test_a_kept_task_writes_on_into_its_log_file_instead_of_dying_of_sigpipe(
    workspace, tmp_path, process_guard
):
    """Once kept, cairn stops reading the task's pipes (as when it exits); a relay takes them."""
    state = ShellState(workspace)
    script = f"i=0; while true; do echo line $i; echo err $i >&2; i=$((i+1)); {process_guard.sleep} 0.1; done"
    task = state.start_task(script, timeout_s=None)
    assert len(process_guard.wait_marked(1)) >= 1
    [(info, log)] = state.close(keep_running=True, log_dir=str(tmp_path / "logs"))
    assert info.task_id == task.task_id and log.startswith(str(tmp_path / "logs"))
    assert task.run.handed_off.is_set() and task.run.proc.stdout.closed  # our ends are closed
    first = os.path.getsize(log)
    time.sleep(1.5)  # without a reader, `echo` would have died of SIGPIPE by now
    deadline = time.monotonic() + 15  # (a loaded machine runs the loop's 0.1 s sleeps slowly)
    while True:
        assert task.run.proc.poll() is None, "the kept task died"
        text = Path(log).read_text(encoding="utf-8")
        text = text[: text.rfind("\n") + 1]  # whole lines (the task may be writing one)
        numbers = [int(x.split()[1]) for x in text.splitlines() if x.startswith("line ")]
        if len(numbers) >= 10 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert os.path.getsize(log) > first and "line 0" in text and "err 0" in text
    assert numbers == list(range(len(numbers))) and len(numbers) >= 10  # nothing lost at the hand-off
    os.killpg(task.run.pgid, signal.SIGTERM)
    task.run.proc.wait(3)


def test_bash_id_and_shell_id_are_accepted_through_the_registry(shell_tools, process_guard):
    from cairn.tools.registry import ToolRegistry

    registry = ToolRegistry([shell_tools.bash, shell_tools.output, shell_tools.kill])
    started = registry.execute("Bash", {"command": f"{process_guard.sleep} 300", "run_in_background": "true"})
    assert started.metadata["task_id"] == "bg-1"
    assert registry.execute("BashOutput", {"bash_id": "bg-1"}).output.startswith("Task bg-1: running")
    assert registry.execute("KillShell", {"shell_id": "bg-1"}).metadata["status"] == "killed"
