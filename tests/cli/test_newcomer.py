"""The rough edges a newcomer hit in the first hour, each closed with a test."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.cli.conftest import call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL


def test_rewind_last_undoes_the_last_turn_of_the_latest_session(run_cairn, script, workspace):
    ws = Path(workspace)
    (ws / "a.txt").write_text("one\n")
    turns = [
        {"content": "First.", "tool_calls": [call("bash", "c1", command="echo first > first.txt")]},
        {"content": "ok"},
        {"content": "Second.", "tool_calls": [call("bash", "c2", command="rm a.txt")]},
        {"content": "gone"},
    ]
    model = ["--model", script(turns), "--approval", "bypass", "--output-format", "json"]
    p = run_cairn("-p", "one", *model)
    assert p.returncode == 0, p.stderr
    sid = json.loads(p.stdout)["session_id"]
    p = run_cairn("resume", sid, "-p", "two", *model)
    assert p.returncode == 0, p.stderr
    assert not (ws / "a.txt").exists()

    dry = run_cairn("rewind", "--last", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "turn 2" in dry.stdout and not (ws / "a.txt").exists()
    p = run_cairn("rewind", "--last")
    assert p.returncode == 0, p.stderr
    assert (ws / "a.txt").read_text() == "one\n" and (ws / "first.txt").exists()
    messages = json.loads(run_cairn("show", sid, "--json").stdout)["messages"]
    assert [m["content"] for m in messages if m["role"] == "user"] == ["one"]
    # --last with a call id rewinds to that call of the latest session
    p = run_cairn("rewind", "--last", "c1", "--code")
    assert p.returncode == 0, p.stderr
    assert not (ws / "first.txt").exists()
    both = run_cairn("rewind", sid, "c1", "--last")
    assert both.returncode == 2 and "not both" in both.stderr


def test_unsandboxed_is_bang_at_the_approval_prompt_and_u_is_only_undo(pty_cairn, script, workspace, cli_env):
    from tests.cli.test_interactive_pty import MENU_END, finish, show_json

    turns = [
        {"content": "", "tool_calls": [call("bash", "b1", command="touch made.txt")]},
        {"content": "Touched."},
    ]
    child = pty_cairn("--model", script(turns), "touch a file")
    child.expect("! yes, without sandbox")
    child.expect(MENU_END)
    child.send("u")  # not a key of this prompt: it is asked again, nothing runs
    child.expect("choose one of")
    assert not Path(workspace, "made.txt").exists()
    child.expect(MENU_END)
    child.send("!")
    child.expect("Touched.")
    child.expect(MENU_END)
    child.sendline("/help")
    child.expect("undo the newest change")
    help_text = child.before + child.after
    child.expect("without the OS sandbox")
    help_text += child.before + child.after
    assert "\n  u " in help_text.replace("\r", "")
    assert "\n  !  " in help_text.replace("\r", "")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    [b1] = show_json(cli_env, workspace)["tool_calls"]
    assert b1["sandbox"] == "off" and b1["decision"] == "approved without sandbox"


def test_a_failing_test_command_is_a_red_cross_not_a_green_tick(run_cairn, script, workspace):
    from cairn.graph.core.state import ToolCallInfo
    from cairn.graph.display.parts import call_status

    turns = [
        {
            "content": "Testing.",
            "tool_calls": [
                call("bash", "t1", command="sh -c 'echo 1 failed; exit 1'"),
                call("bash", "t2", command="echo all passed"),
            ],
        },
        {"content": "One failed."},
    ]
    p = run_cairn("-p", "run the tests", "--model", script(turns), "--approval", "bypass")
    assert p.returncode == 0, p.stderr
    lines = {
        line.split(" bash ")[1].split("  ")[0]: line for line in p.stderr.splitlines() if " bash " in line
    }
    failing, passing = lines["sh -c 'echo 1 failed; exit 1'"], lines["echo all passed"]
    assert failing.lstrip().startswith("✗") and "exit 1" in failing
    assert passing.lstrip().startswith("✓")
    shown = run_cairn("show", "--last").stdout
    assert any(line.lstrip().startswith("✗ bash sh -c") for line in shown.splitlines())

    calls = {c["call_id"]: c for c in json.loads(run_cairn("show", "--last", "--json").stdout)["tool_calls"]}
    assert calls["t1"]["status"] == "success"  # the call ran: the lifecycle status stays a fact
    assert call_status(ToolCallInfo.model_validate(calls["t1"])) == "failed"
    assert call_status(ToolCallInfo.model_validate(calls["t2"])) == "success"


# the sandbox fixtures: a workspace outside /tmp, each backend that works here
from tests.shell.sandbox.conftest import area, backend, sandboxed  # noqa: E402, F401


def test_a_writing_command_leaves_no_empty_placeholder_dirs(sandboxed):  # noqa: F811
    tools = sandboxed
    ws = tools.area.ws
    (ws / ".git" / "hooks").rmdir()  # both placeholders missing before the command
    assert not (ws / ".cairn").exists()
    (ws / "src").mkdir()  # (Landlock cannot let a command create files in the root itself)
    result = tools.run("echo hi > src/made.txt", "workspace-write")
    assert result.ok, result.error
    assert (ws / "src" / "made.txt").read_text() == "hi\n", result.output
    end = time.monotonic() + 5  # removed once the sandbox has exited (at once, or a moment later)
    while ((ws / ".cairn").exists() or (ws / ".git" / "hooks").exists()) and time.monotonic() < end:
        time.sleep(0.02)
    assert not (ws / ".cairn").exists() and not (ws / ".git" / "hooks").exists()
    # a protected directory that already exists is left alone
    (ws / ".cairn").mkdir()
    assert tools.run("echo again >> src/made.txt", "workspace-write").ok
    assert (ws / ".cairn").is_dir()
    # and one the command could not write into is still protected while it runs
    blocked = tools.run("mkdir -p .cairn/x", "workspace-write")
    assert not (ws / ".cairn" / "x").exists(), blocked.output


def test_the_approval_widget_has_a_static_view_for_exported_html(monkeypatch):
    import sys

    from cairn.graph.apps.notebook import approval_widget
    from tests.notebooks.test_widgets import GATED, FakeSession, fake_ipywidgets

    monkeypatch.setitem(sys.modules, "ipywidgets", fake_ipywidgets())
    widget = approval_widget(FakeSession([GATED]))
    assert widget.children  # the live buttons are still there
    data = widget._repr_mimebundle_()
    html = data["text/html"]
    assert "edits a file" in html and "e1" in html and "session.approve(" in html
    assert "need a running kernel" in html


def test_resume_after_sigkill_shows_the_killed_call_interrupted_at_once(tmp_path, db_location):
    from cairn import Session
    from tests.graph.test_recovery_kill import Harness, _finished_model, _tools
    from tests.graph.test_recovery_kill import call as effect

    h = Harness(
        tmp_path, [{"tool_calls": [effect("effect", "slow", 60)]}, {"content": "finished"}], db_location
    )
    h.start_and_kill("--send", "go", marker="started-slow")
    s = Session.resume(h.session_id, db=h.db, model=_finished_model(), tools=_tools(h))
    try:
        [killed] = s.pending()  # before any continue_(): nothing ran, nothing was recovered yet
        assert killed.call_id == "call_slow" and killed.status == "interrupted"
        assert "process stopped" in (killed.error_msg or "")
        assert h.runs() == ["slow"]
        result = s.cancel("call_slow")  # retry/cancel work on it directly
        assert result.status == "done", result
        assert h.runs() == ["slow"], "a cancelled call never runs again"
        assert s.pending() == []
    finally:
        s.close()


def screen_lines(child) -> list[str]:
    """What the terminal showed, line by line: escapes removed, a redrawn line (``\\r``) split
    into the frames drawn over each other."""
    import re

    text = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", child.logfile_read.getvalue())
    return [frame for line in text.split("\n") for frame in line.split("\r") if frame]


PLAN_TURNS = [
    {
        "content": "Writing.",
        "tool_calls": [
            call("write_file", "w1", file_path="x.txt", content="x\n"),
            call("bash", "b1", command="touch y"),
        ],
    },
    {"content": "I could not write; here is the plan."},
]


@pytest.mark.parametrize("headless", [True, False], ids=["-p", "interactive"])
def test_plan_mode_refusals_get_a_line_in_the_live_cli(pty_cairn, script, workspace, headless):
    from tests.cli.test_interactive_pty import MENU_END, finish

    args = ["--model", script(PLAN_TURNS), "--approval", "plan"]
    prompt = ["-p", "write x"] if headless else ["write x"]
    child = pty_cairn(*prompt, *args, cols=70)
    child.expect("here is the plan")
    if not headless:
        child.expect(MENU_END)
        child.sendeof()
    assert finish(child) == 0
    # write_file is not offered in plan mode (the model is told); bash is, and the policy refuses
    # the writing command: both refusals get a line
    lines = [line for line in screen_lines(child) if " plan" in line and ("✗" in line or "×" in line)]
    assert any("write_file x.txt" in line for line in lines), lines
    assert any("bash touch y" in line for line in lines), lines
    assert all(len(line) <= 70 for line in lines)
    assert not Path(workspace, "x.txt").exists() and not Path(workspace, "y").exists()


def test_resume_keeps_the_sessions_endpoint_and_model_and_says_when_overridden(
    run_cairn, make_openai_server, workspace
):
    first = make_openai_server([{"content": "one"}, {"content": "two"}])
    other = make_openai_server([{"content": "-"}, {"content": "-"}, {"content": "three"}])  # by turn number
    key = {"OPENAI_API_KEY": "dummy"}
    p = run_cairn(
        "-p", "hi", "--model", "test-model", "--base-url", first.base_url, "--output-format", "json", env=key
    )
    assert p.returncode == 0, p.stderr
    sid = json.loads(p.stdout)["session_id"]
    [record] = json.loads(run_cairn("sessions", "--json").stdout)
    assert record["model"] == f"test-model via {first.base_url}"  # shown by `sessions` and the banner

    # $OPENAI_BASE_URL now names another server: the session still talks to its own
    p = run_cairn("resume", sid, "-p", "again", env={**key, "OPENAI_BASE_URL": other.base_url})
    assert p.returncode == 0, p.stderr
    assert p.stdout == "two\n" and len(first.requests) == 2 and not other.requests
    assert first.requests[1]["model"] == "test-model"
    assert "instead of" not in p.stderr

    # an explicit --base-url/--model overrides it for that run, and says so
    p = run_cairn("resume", sid, "-p", "elsewhere", "--base-url", other.base_url, "--model", "m2", env=key)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "three\n" and other.requests[0]["model"] == "m2"
    assert f"endpoint {other.base_url} instead of {first.base_url}" in p.stderr
    assert "model m2 instead of the session's test-model" in p.stderr


LONG_COMMAND = "echo hi > notes.txt && ls -la tests/some_rather_long_directory_name/ src/another_dir"


def test_approval_block_wraps_between_words_at_70_columns_and_answers_have_no_doubled_blank_lines(
    pty_cairn, script, workspace
):
    from tests.cli.test_interactive_pty import MENU_END, finish

    turns = [
        {"content": "", "tool_calls": [call("bash", "b1", command=LONG_COMMAND)]},
        {"content": "Done.\n\n\n\nSecond paragraph.\n\n\n- item\n\n```\nx = 1\n\n\ny = 2\n```\n\n\nEnd."},
    ]
    child = pty_cairn("--model", script(turns), "go", cols=70)
    child.expect("Allow\\?")
    child.expect(MENU_END)
    block = screen_lines(child)
    start = max(i for i, line in enumerate(block) if "? bash" in line)
    block = [line.rstrip() for line in block[start:] if line.strip()]
    assert all(len(line) <= 70 for line in block), block
    shown = " ".join(block).split()
    assert set(LONG_COMMAND.split()) <= set(shown), block  # every word whole, none cut in two
    menu = " ".join(line.strip() for line in block if "Allow?" in line or line.startswith("    "))
    assert "once (no always rule fits)" in " ".join(block) and "write_file" not in menu
    assert not any(
        line.rstrip().endswith((" a", " y", " n", " e", " !")) for line in block
    )  # no key without its label
    child.send("y")
    child.expect("End.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    import re

    raw = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]", "", child.logfile_read.getvalue()).replace("\r\n", "\n")
    answer = raw[raw.index("Done.") : raw.index("End.") + 4]
    prose = answer.split("```")
    assert "\n\n\n" not in prose[0] and "\n\n\n" not in prose[-1], answer  # one blank line at most
    assert "Second paragraph." in prose[0] and "x = 1\n\n\ny = 2" in answer  # the code keeps its own
