"""The interactive CLI through a real pseudo-terminal (pexpect): what a person actually does."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import cairn_cmd, call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

MENU_END = "› "


@pytest.fixture
def spawn(pty_cairn):
    """``spawn(*args, color=False)``: 50 x 200, no colors unless asked."""
    return pty_cairn


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)


def show_json(cli_env, workspace) -> dict:
    sid = json.loads(
        subprocess.run(
            [*cairn_cmd(), "sessions", "--json"], cwd=workspace, env=cli_env, capture_output=True, text=True
        ).stdout
    )[0]["session_id"]
    out = subprocess.run(
        [*cairn_cmd(), "show", sid, "--json"], cwd=workspace, env=cli_env, capture_output=True, text=True
    )
    return json.loads(out.stdout)


WRITE = [
    {
        "content": "I will write the notes.",
        "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="hi\n")],
    },
    {"content": "Notes written."},
]


@pytest.mark.smoke
def test_prompt_stream_approve_and_leave(spawn, script, workspace):
    child = spawn("--model", script(WRITE))
    child.expect("Type a message")
    child.expect(MENU_END)
    child.sendline("write the notes")
    child.expect("I will write the notes.")
    child.expect("write_file notes.txt")
    child.expect("why: write_file changes notes.txt")
    child.expect(r"\+hi")  # the diff preview
    child.expect("Allow\\?")
    child.expect(MENU_END)
    child.send("y")
    child.expect("Notes written.")
    child.expect(r"\d+ in · \d+ out · 1 model call")  # usage and elapsed per turn
    child.expect(MENU_END)
    assert Path(workspace, "notes.txt").read_text() == "hi\n"
    child.sendline("/exit")
    child.expect(r"resume:\s+cairn resume [0-9a-f]{12}")
    assert finish(child) == 0


def test_colors_on_a_tty(spawn, script):
    child = spawn("--model", script(WRITE), "write it", color=True)
    child.expect("\x1b\\[32m +\\+hi")  # the diff's addition in green
    child.expect(MENU_END)
    child.send("y")
    child.expect("Notes written.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_reject_with_feedback_reaches_the_model(spawn, script, workspace, cli_env):
    turns = [WRITE[0], {"content": "OK, not writing it."}]
    child = spawn("--model", script(turns), "write the notes")
    child.expect("Allow\\?")
    child.expect(MENU_END)
    child.send("n")
    child.expect("what should it do instead\\?")
    child.sendline("use notes.md")
    child.expect("OK, not writing it.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    assert not Path(workspace, "notes.txt").exists()
    doc = show_json(cli_env, workspace)
    [w1] = doc["tool_calls"]
    assert w1["status"] == "cancelled" and "use notes.md" in w1["result"]
    assert "use notes.md" in next(m["content"] for m in doc["messages"] if m["role"] == "tool")


def test_always_allow_is_not_asked_again(spawn, script, workspace):
    turns = [
        {
            "content": "First write.",
            "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="a\n")],
        },
        {"content": "", "tool_calls": [call("read_file", "r1", file_path="notes.txt")]},
        {
            "content": "Second write.",
            "tool_calls": [call("write_file", "w2", file_path="notes.txt", content="b\n")],
        },
        {"content": "All written."},
    ]
    child = spawn("--model", script(turns), "write twice")
    child.expect("Allow\\?")
    child.expect(MENU_END)
    child.send("a")
    child.expect("All written.")
    assert "Allow?" not in child.before  # the second write ran under the session rule
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    assert Path(workspace, "notes.txt").read_text() == "b\n"


def test_several_calls_decided_all_at_once(spawn, script, workspace):
    turns = [
        {
            "content": "",
            "tool_calls": [
                call("write_file", "w1", file_path="a.txt", content="a"),
                call("write_file", "w2", file_path="b.txt", content="b"),
            ],
        },
        {"content": "Both written."},
    ]
    child = spawn("--model", script(turns), "write both")
    child.expect("2 tool calls need your decision")
    child.expect("Y/N: all remaining")
    child.expect(MENU_END)
    child.send("Y")
    child.expect("Both written.")
    assert Path(workspace, "a.txt").exists() and Path(workspace, "b.txt").exists()
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_edit_arguments_inline(spawn, script, workspace):
    turns = [
        {"content": "", "tool_calls": [call("bash", "b1", command="touch wrong.txt")]},
        {"content": "Touched."},
    ]
    child = spawn("--model", script(turns), "touch a file")
    child.expect("\\$ touch wrong.txt")
    child.expect(MENU_END)
    child.send("e")
    child.expect("new command: ")
    child.send("\x15touch right.txt\r")  # Ctrl-U clears the prefilled command
    child.expect("Touched.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    assert Path(workspace, "right.txt").exists() and not Path(workspace, "wrong.txt").exists()


SLOW = [
    {
        "content": "Running it.",
        "tool_calls": [call("bash", "b1", command="echo SLEEPY-NOW; sleep 30; echo woke")],
    },
    {"content": "It was cancelled."},
]


def test_ctrl_c_stops_the_command_second_exits_130_and_resume_offers_retry(spawn, script):
    spec = script(SLOW)
    child = spawn("--model", spec, "run the slow thing")
    child.expect("SLEEPY-NOW")  # live output of the running command
    began = time.monotonic()
    child.sendintr()
    child.expect("stopping")
    child.expect("Run it again\\?")
    assert time.monotonic() - began < 5
    child.expect(MENU_END)
    child.sendintr()
    child.expect(r"resume:\s+cairn resume")
    assert finish(child) == 130

    child = spawn("resume", "--last")
    child.expect("resuming [0-9a-f]{12}")
    child.expect("you: run the slow thing")
    child.expect("Stopped by the person")
    child.expect("Run it again\\?")
    child.expect(MENU_END)
    child.send("c")
    child.expect("It was cancelled.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_ctrl_c_once_at_the_prompt_only_warns(spawn, script):
    child = spawn("--model", script([{"content": "hi"}]))
    child.expect(MENU_END)
    # readline prints the prompt before it has set up the terminal; a ^C in that instant can be
    # lost (about 1 run in 6 here), as it would be for a person - give it a moment first.
    time.sleep(0.3)
    child.sendintr()
    child.expect("Ctrl-C again to exit")
    child.sendline("hello")
    child.expect("hi")
    child.expect(MENU_END)
    time.sleep(0.3)  # the same readline set-up window as above
    child.sendintr()
    child.expect("Ctrl-C again to exit")
    child.sendintr()
    assert finish(child) == 130


def test_ctrl_c_while_the_model_answers_stops_the_answer(spawn, script):
    # A reply stopped before its first token leaves no AI message, so the scripted model may
    # replay turn 0 for the next message: both turns say the same, only the first is slow.
    turns = [{"content": "The slow answer.", "sleep": 1.5}, {"content": "The slow answer."}]
    child = spawn("--model", script(turns), "say something")
    time.sleep(0.5)
    child.expect("thinking", timeout=10)
    child.sendintr()
    child.expect("answer stopped")
    child.expect(MENU_END)
    assert "slow answer" not in child.before
    child.sendline("again")
    child.expect("The slow answer.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_ctrl_c_on_a_continuation_line_drops_the_message(spawn, script, cli_env, workspace):
    child = spawn("--model", script([{"content": "Only the second message got here."}]))
    child.expect(MENU_END)
    time.sleep(0.3)
    child.sendline("first part \\")
    child.expect("… ")
    time.sleep(0.3)
    child.sendintr()
    child.expect("Ctrl-C again to exit")  # like the idle prompt: a hint, not an exit
    child.expect(MENU_END)
    child.sendline("second message")
    child.expect("Only the second message got here.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    doc = show_json(cli_env, workspace)
    assert [m["content"] for m in doc["messages"] if m["role"] == "user"] == ["second message"]


def test_resume_reasks_a_pending_approval(spawn, script, run_cairn, workspace):
    spec = script(WRITE)
    assert run_cairn("-p", "write notes", "--model", spec).returncode == 3
    child = spawn("resume", "--last")
    child.expect("resuming")
    child.expect("write_file notes.txt")
    child.expect("Allow\\?")
    child.expect(MENU_END)
    child.send("y")
    child.expect("Notes written.")
    child.expect(MENU_END)
    child.sendline("/exit")
    assert finish(child) == 0
    assert Path(workspace, "notes.txt").exists()


def test_slash_commands(spawn, script):
    child = spawn("--model", script([{"content": "ok"}]))
    child.expect(MENU_END)
    child.sendline("/help")
    child.expect("/mode")
    child.sendline("/mode plan")
    child.expect("mode: plan")
    child.sendline("/mode")
    child.expect("mode: plan")
    child.sendline("/mode nope")
    child.expect("unknown mode")
    child.sendline("/sessions")
    child.expect("no sessions")
    child.sendline("/bogus")
    child.expect("unknown command")
    child.sendline("/exit")
    assert finish(child) == 0


def test_model_error_then_continue(spawn, script):
    child = spawn("--model", script([{"http_error": 500, "times": 1, "content": "Recovered."}]), "hello")
    child.expect("error: ")
    child.expect("/continue tries again")
    child.expect(MENU_END)
    child.sendline("/continue")
    child.expect("Recovered.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_model_error_then_a_new_message(spawn, script):
    child = spawn("--model", script([{"http_error": 500, "times": 1, "content": "Recovered."}]), "hello")
    child.expect("error: ")
    child.expect(MENU_END)
    child.sendline("are you there?")
    child.expect("Recovered.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_backslash_continues_the_message(spawn, script, cli_env, workspace):
    child = spawn("--model", script([{"content": "Got both lines."}]))
    child.expect(MENU_END)
    child.sendline("first line \\")
    child.expect("… ")
    child.sendline("second line")
    child.expect("Got both lines.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    assert show_json(cli_env, workspace)["messages"][0]["content"] == "first line \nsecond line"


def test_interactive_through_the_real_client(spawn, make_openai_server, cli_env, workspace):
    server = make_openai_server([WRITE[0], {"content": "Written over HTTP."}])
    child = spawn("--model", "test-model", "--base-url", server.base_url, "write the notes")
    child.expect("I will write the notes.")
    child.expect("Allow\\?")
    child.expect(MENU_END)
    child.send("y")
    child.expect("Written over HTTP.")
    child.expect(MENU_END)
    child.sendeof()
    child.expect(f"cairn resume [0-9a-f]{{12}} --base-url {server.base_url}")
    assert finish(child) == 0
    assert Path(workspace, "notes.txt").read_text() == "hi\n"
    assert all(body.get("stream") for body in server.requests)


def _sleepers(marker: str) -> list:
    import psutil

    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if marker in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def test_background_tasks_are_listed_and_stopped_on_exit(spawn, script):
    marker = "307.25"
    turns = [
        {"tool_calls": [call("bash", "b1", command=f"sleep {marker}", run_in_background=True)]},
        {"content": "Started it."},
    ]
    child = spawn("--model", script(turns), "--approval", "bypass", "start the server")
    child.expect("Started it.")
    child.expect(MENU_END)
    child.sendline("/tasks")
    child.expect("running")
    child.expect(f"sleep {marker}")
    child.expect(MENU_END)
    assert _sleepers(marker), "the background task is running"
    child.sendeof()
    child.expect("still running")
    child.send("s")
    assert finish(child) == 0
    deadline = time.monotonic() + 10
    while _sleepers(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _sleepers(marker), "stopped on exit"


def test_resume_flags_on_a_crashed_session_interactively(spawn, script, cli_env, workspace):
    from tests.cli.test_resume_flags import WAIT_FOR_GO, crashed

    turns = [
        {"content": "Running.", "tool_calls": [call("bash", "b1", command=WAIT_FOR_GO)]},
        {"content": "Finished."},
    ]
    sid = crashed(cli_env, workspace, script(turns))
    Path(workspace, "go").touch()
    child = spawn("resume", sid[:12], "--retry", "all")
    child.expect("cut off mid-run")
    child.expect("Finished.")  # recovered, then retried by the flag: nobody was asked
    child.expect(MENU_END)
    assert "Run it again?" not in child.before
    child.sendline("/exit")
    assert finish(child) == 0
    [b1] = show_json(cli_env, workspace)["tool_calls"]
    assert b1["status"] == "success" and "ran" in b1["result"]


def test_approval_shows_the_sandbox_and_bang_runs_without_it(spawn, script, workspace, cli_env):
    turns = [
        {"content": "", "tool_calls": [call("bash", "b1", command="touch made.txt")]},
        {"content": "", "tool_calls": [call("bash", "b2", command="touch again.txt")]},
        {"content": "Touched."},
    ]
    child = spawn("--model", script(turns), "touch files")
    child.expect("\\$ touch made.txt")
    child.expect("sandbox: workspace-write")
    child.expect("! yes, without sandbox")
    child.expect(MENU_END)
    child.send("!")
    child.expect("\\$ touch again.txt")
    child.expect(MENU_END)
    child.send("y")
    child.expect("Touched.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    assert Path(workspace, "made.txt").exists() and Path(workspace, "again.txt").exists()
    calls = {c["call_id"]: c for c in show_json(cli_env, workspace)["tool_calls"]}
    assert calls["b1"]["sandbox"] == "off" and calls["b1"]["decision"] == "approved without sandbox"
    assert calls["b2"]["sandbox"] == "workspace-write"


def test_a_sync_sub_agents_call_is_asked_at_the_parents_prompt(spawn, script, workspace):
    kid = script(
        [
            {"tool_calls": [call("write_file", "c1", file_path="kid.txt", content="from kid\n")]},
            {"content": "kid wrote"},
        ]
    )
    spawn_kid = call("agent", "p1", description="writer kid", prompt="write", read_only=False, model=kid)
    parent = script([{"tool_calls": [spawn_kid]}, {"content": "Parent finished."}])
    child = spawn("--model", parent, "delegate it")
    child.expect("Allow\\?")  # the parent's own agent call first
    child.expect(MENU_END)
    child.send("y")
    child.expect(r"\[sub-agent: writer kid\] write_file")
    child.expect(r"\[p1/c1\]")
    child.expect(r"\+from kid")
    child.expect("Allow\\?")
    child.expect(MENU_END)
    assert not Path(workspace, "kid.txt").exists()
    child.send("y")
    child.expect("Parent finished.")
    child.expect(MENU_END)
    assert Path(workspace, "kid.txt").read_text() == "from kid\n"
    child.sendeof()
    assert finish(child) == 0
