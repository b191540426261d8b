"""The bash tool end to end: output format, cwd, stdin, unicode, limits, binary, metadata."""

from __future__ import annotations

import os
import subprocess

import pytest

from cairn.tools.base import ToolContext
from cairn.tools.shell.bash import BashTool
from cairn.tools.shell.bash_output import BashOutputTool
from cairn.tools.shell.kill_bash import KillBashTool


def test_metadata_of_the_three_tools():
    assert (BashTool.name, BashTool.risk_level, BashTool.read_only) == ("bash", "HIGH", False)
    assert not BashTool.concurrency_safe and BashTool.destructive
    assert BashTool.aliases == ("Bash", "shell", "run_command", "execute_command")
    assert (BashOutputTool.name, BashOutputTool.risk_level) == ("bash_output", "LOW")
    assert BashOutputTool.read_only and BashOutputTool.concurrency_safe and BashOutputTool.idempotent
    assert BashOutputTool.aliases == ("BashOutput",)
    assert (KillBashTool.name, KillBashTool.risk_level, KillBashTool.read_only) == ("kill_bash", "LOW", False)
    assert KillBashTool.aliases == ("KillBash", "KillShell")


def test_stdout_then_marked_stderr_then_exit_code(shell_tools):
    result = shell_tools.run("echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 3")
    assert result.ok
    assert result.output == "out1\nout2\n[stderr] err1\n[stderr] err2\nExit code: 3"
    assert result.metadata["exit_code"] == 3
    assert result.metadata["stdout_bytes"] == 10 and result.metadata["stderr_bytes"] == 10
    assert result.metadata["truncated"] is False
    assert result.metadata["programs"] == ["echo", "exit"]
    assert result.metadata["duration_s"] < 5


def test_no_output_is_said_and_duration_is_not_reported_for_quick_commands(shell_tools):
    result = shell_tools.run("true")
    assert result.output == "(no output)\nExit code: 0"


def test_cwd_persists_between_calls_and_is_reported(shell_tools):
    (shell_tools.root / "sub" / "dir").mkdir(parents=True)
    first = shell_tools.run("cd sub/dir")
    assert first.output.endswith("cwd is now: sub/dir")
    assert first.metadata["cwd"] == "sub/dir"
    second = shell_tools.run("pwd")
    assert second.output.splitlines()[0] == str(shell_tools.root / "sub" / "dir")
    assert "cwd is now" not in second.output  # unchanged: not repeated
    third = shell_tools.run("cd ../..")
    assert third.output.endswith("cwd is now: .")


def test_cd_out_of_the_workspace_resets_to_the_root_and_says_so(shell_tools):
    (shell_tools.root / "sub").mkdir()
    shell_tools.run("cd sub")
    result = shell_tools.run("cd /tmp")
    assert "outside the workspace" in result.output and "reset to the workspace root" in result.output
    assert shell_tools.run("pwd").output.splitlines()[0] == str(shell_tools.root)


def test_symlink_leading_outside_counts_as_outside(shell_tools, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (shell_tools.root / "link").symlink_to(outside)
    result = shell_tools.run("cd link")
    assert "outside the workspace" in result.output
    assert shell_tools.services.shell.cwd == shell_tools.root


def test_exit_in_the_command_still_records_the_directory(shell_tools):
    (shell_tools.root / "d").mkdir()
    result = shell_tools.run("cd d && exit 4")
    assert "Exit code: 4" in result.output and "cwd is now: d" in result.output


def test_deleted_cwd_falls_back_to_the_root(shell_tools):
    (shell_tools.root / "gone").mkdir()
    shell_tools.run("cd gone")
    (shell_tools.root / "gone").rmdir()
    result = shell_tools.run("pwd")
    assert result.output.startswith(str(shell_tools.root) + "\n")
    assert "no longer exists" in result.output


@pytest.mark.parametrize(
    "command",
    [
        "cat",
        'read -r line; echo "got:[$line]"',
        "python3 -c 'import sys; print(len(sys.stdin.read()))'",
        "head -n 1",
    ],
)
def test_commands_reading_stdin_do_not_hang(shell_tools, command):
    result = shell_tools.run(command, timeout=10_000)
    assert result.ok, result.error
    assert result.metadata["duration_s"] < 5
    assert result.metadata["exit_code"] in (0, 1)


def test_no_terminal_to_prompt_on(shell_tools):
    result = shell_tools.run(
        "test -t 0 && echo tty || echo notty; (exec 3</dev/tty) 2>/dev/null || echo no-dev-tty"
    )
    assert result.output.startswith("notty\nno-dev-tty")


def test_cjk_and_emoji_output_intact(shell_tools):
    text = "中文输出 日本語 한국어 😀 ünïcödé"
    (shell_tools.root / "文件.txt").write_text(text + "\n", encoding="utf-8")
    result = shell_tools.run("cat 文件.txt; ls; echo 错误 >&2")
    assert result.output == f"{text}\n文件.txt\n[stderr] 错误\nExit code: 0"


def test_huge_output_keeps_exact_head_and_tail(shell_tools):
    # 300000 bytes, every line numbered: head is 163840 bytes, tail 40960, the rest omitted.
    result = shell_tools.run("seq -f '%010g' 1 27273 | head -c 300000")
    full = subprocess.run(
        ["bash", "-c", "seq -f '%010g' 1 27273 | head -c 300000"], capture_output=True, check=True
    ).stdout
    assert len(full) == 300000
    body = result.output.rsplit("\nExit code: 0", 1)[0]
    head, rest = body.split("\n[... ", 1)
    marker, tail = rest.split("\n", 1)
    assert head.encode() == full[:163840]  # 163840 is not on a line boundary: no newline added
    assert tail.encode() == full[-40960:]
    omitted_lines = full[163840:-40960].count(b"\n")
    assert marker == f"{300000 - 204800:,} bytes, {omitted_lines:,} lines of stdout omitted ...]"
    assert result.metadata["truncated"] is True
    assert result.metadata["stdout_bytes"] == 300000


def test_stderr_is_bounded_separately(shell_tools):
    result = shell_tools.run("head -c 100000 /dev/zero | tr '\\0' e >&2; echo fine")
    assert result.output.startswith("fine\n[stderr] eeee")
    err_kept = result.output.count("e") - result.output.count("Exit code") - result.output.count("[stderr]")
    assert "bytes of stderr omitted" in result.output
    assert f"{100000 - 56 * 1024:,} bytes" in result.output
    assert err_kept >= 56 * 1024


PRINTF_BINARY = {
    "PNG image": r"\x89PNG\r\n\x1a\n\x00\x00",
    "ELF executable": r"\x7fELF\x02\x01",
    "gzip archive": r"\x1f\x8b\x08\x00",
    "PDF document": r"%%PDF-1.4\n\xe2\xe3",
    "binary data (NUL bytes)": r"text\x00with nul",
}


@pytest.mark.parametrize("kind", sorted(PRINTF_BINARY))
def test_binary_stdout_is_replaced_by_a_note(shell_tools, kind):
    result = shell_tools.run(f"printf '{PRINTF_BINARY[kind]}'")
    assert result.output.startswith("[binary output: ")
    assert result.output.splitlines()[0].endswith(f", {kind}]")


def test_large_binary_reports_its_full_size(shell_tools):
    result = shell_tools.run("printf '\\x89PNG\\r\\n\\x1a\\n'; head -c 1258283 /dev/zero")
    assert result.output.splitlines()[0] == "[binary output: 1.2 MB, PNG image]"


def test_ansi_escapes_are_stripped_for_the_model(shell_tools):
    result = shell_tools.run(r"printf '\033[1;32mgreen\033[0m and \033]0;title\007plain\n'")
    assert result.output.startswith("green and plain\n")


def test_timeout_argument_is_validated(shell_tools):
    result = shell_tools.run("true", timeout=600_001)
    assert not result.ok and "timeout" in result.error and "600000" in result.error


def test_read_only_label_and_progress(shell_tools):
    seen: list[str] = []
    ctx = ToolContext(on_progress=seen.append, risk="LOW")
    result = shell_tools.run("for i in 1 2 3; do echo step $i; sleep 0.15; done", ctx)
    assert seen[0] == "Running: for i in 1 2 3; do echo step $i; sleep 0.15; done (read-only)"
    assert seen[1:] == ["step 1", "step 2", "step 3"]
    assert result.metadata["read_only"] is True
    assert "(read-only)" in result.display


def test_leftover_background_processes_are_stopped(shell_tools, process_guard):
    result = shell_tools.run(f"{process_guard.sleep} 300 & echo started")
    assert result.output.startswith("started\nExit code: 0\nNote: the command left 1 background process")
    assert process_guard.wait_none_marked(timeout=10) == []


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def git_workspace(shell_tools):
    root = shell_tools.root
    _git(root, "init", "-q")
    (root / "tracked.txt").write_text("one\n")
    (root / "dirty.txt").write_text("one\n")
    (root / "untouched.txt").write_text("one\n")
    _git(root, "add", ".")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    (root / "dirty.txt").write_text("two\n")  # already modified before the command
    return shell_tools


def test_changed_files_lists_what_a_command_touched(git_workspace):
    os.utime(git_workspace.root / "dirty.txt", ns=(1, 1))  # so a rewrite changes the mtime for sure
    result = git_workspace.run(
        "echo new > created.txt; echo more >> tracked.txt; echo three > dirty.txt; mkdir -p d; echo x > d/y"
    )
    assert result.metadata["changed_files"] == ["created.txt", "d/y", "dirty.txt", "tracked.txt"]


def test_changed_files_sees_deletions_and_reverts(git_workspace):
    result = git_workspace.run("rm untouched.txt; git checkout -q -- dirty.txt")
    assert result.metadata["changed_files"] == ["dirty.txt", "untouched.txt"]


def test_changed_files_relative_to_a_workspace_inside_a_repo(git_workspace):
    sub = git_workspace.root / "pkg"
    sub.mkdir()
    from cairn.tools.services import ToolServices
    from cairn.tools.workspace import Workspace

    services = ToolServices(Workspace(sub))
    try:
        result = BashTool(Workspace(sub), services).execute({"command": "echo hi > mod.py"})
        assert result.metadata["changed_files"] == ["mod.py"]
    finally:
        services.close()


def _count_status(shell_tools):
    changes = shell_tools.services.shell.changes
    original, seen = changes._run, []

    def counting(*args):
        if "status" in args:
            seen.append(args)
        return original(*args)

    changes._run = counting
    return seen


def test_a_later_writing_command_runs_git_status_once(git_workspace):
    statuses = _count_status(git_workspace)
    git_workspace.run("true")  # the first writing command: a full snapshot before and after
    assert len(statuses) == 2
    os.utime(git_workspace.root / "dirty.txt", ns=(1, 1))
    result = git_workspace.run(
        "echo new > created.txt; echo more >> tracked.txt; echo three > dirty.txt; rm untouched.txt"
    )
    assert len(statuses) == 3
    assert result.metadata["changed_files"] == ["created.txt", "dirty.txt", "tracked.txt", "untouched.txt"]
    result = git_workspace.run("git checkout -q -- tracked.txt; true")
    assert len(statuses) == 4
    assert result.metadata["changed_files"] == ["tracked.txt"]  # reverted: it left the status list


def test_after_the_warm_up_the_first_writing_command_runs_git_status_once(git_workspace):
    from cairn.tools.registry import ToolRegistry

    services = git_workspace.services
    services.registry = ToolRegistry([git_workspace.bash])
    services.warm()  # what a session's run does when it starts
    services.shell.changes._join_warmup()
    statuses = _count_status(git_workspace)
    stale = git_workspace.root / "tracked.txt"
    stale.write_text("edited after the warm-up, before the command\n")
    os.utime(stale, ns=(1, 1))
    result = git_workspace.run("rm untouched.txt; echo n > created.txt")
    assert len(statuses) == 1
    assert result.metadata["changed_files"] == ["created.txt", "untouched.txt"]


def test_no_warm_up_without_the_bash_tool(git_workspace):
    from cairn.tools.registry import ToolRegistry

    services = git_workspace.services
    services.registry = ToolRegistry([])
    services.warm()
    assert services.shell.changes._warming is None


def test_a_file_edited_between_commands_is_not_blamed_on_the_next(git_workspace):
    git_workspace.run("true")
    edited = git_workspace.root / "tracked.txt"
    edited.write_text("edited by another tool\n")
    os.utime(edited, ns=(1, 1))  # written before the next command started
    result = git_workspace.run("echo x > created.txt")
    assert result.metadata["changed_files"] == ["created.txt"]
    result = git_workspace.run("echo again >> tracked.txt")  # already dirty, changed again
    assert result.metadata["changed_files"] == ["tracked.txt"]


def test_read_only_commands_are_not_snapshotted(git_workspace):
    result = git_workspace.run("echo x > created.txt", ToolContext(risk="LOW"))
    assert result.metadata["changed_files"] == []


def test_no_changed_files_outside_git(shell_tools):
    result = shell_tools.run("echo x > f.txt")
    assert result.metadata["changed_files"] == []


def test_after_close_commands_are_refused(shell_tools):
    shell_tools.services.close()
    result = shell_tools.run("echo hi")
    assert not result.ok and "closed" in result.error


def test_syntax_errors_are_reported_with_the_right_line(shell_tools):
    result = shell_tools.run("echo ok\nif then")
    assert "[stderr] bash: -c: line 2: syntax error" in result.output
    assert "Exit code: 2" in result.output


def test_no_git_is_started_outside_a_work_tree_until_one_appears(shell_tools):
    if any(os.path.lexists(p / ".git") for p in shell_tools.root.resolve().parents):
        pytest.skip("the test's temporary folder is inside a git repository")
    changes = shell_tools.services.shell.changes
    original, runs = changes._run, []

    def counting(*args):
        runs.append(args)
        return original(*args)

    changes._run = counting
    shell_tools.run("echo x > f.txt")
    shell_tools.run("echo y > g.txt")
    assert runs == []  # a plain directory: not even `git rev-parse` per writing command
    shell_tools.run("git init -q .")
    result = shell_tools.run("echo w > i.txt")
    assert "i.txt" in result.metadata["changed_files"]
    assert any("status" in args for args in runs)


@pytest.mark.parametrize("exit_fd", [True, False], ids=["pidfd", "polling"])
def test_a_command_that_closes_its_output_first_is_waited_for(shell_tools, monkeypatch, exit_fd):
    import cairn.tools.shell.command as command

    if not exit_fd:
        monkeypatch.setattr(command, "_exit_fd", lambda pid: None)
    result = shell_tools.run("echo before; exec >&- 2>&-; sleep 0.3; echo gone > after.txt")
    assert result.metadata["exit_code"] == 0 and result.metadata["status"] == "exited"
    assert result.metadata["duration_s"] >= 0.25  # not taken as ended when its pipes closed
    assert "before" in result.output and (shell_tools.root / "after.txt").read_text() == "gone\n"
