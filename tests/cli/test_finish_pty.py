"""What a daily user sees in a real terminal (pexpect, 70 and 160 columns): rendered Markdown,
lines cut to the width, live timers, approvals listed together, background tasks kept alive."""

from __future__ import annotations

import functools
import os
import re
import signal
import time
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

MENU_END = "› "
#: CSI sequences (colors, cursor moves, erase) and OSC sequences (hyperlinks, titles).
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-B]")

ANSWER = (
    "## Why the test fails\n\n"
    "The function **median** returns the *upper* middle value for an even count, so "
    "`test_median_even` expects 2.5 and gets 3. This sentence is long on purpose, so that it "
    "has to be word-wrapped at seventy columns instead of running off the edge.\n\n"
    "- sort the values\n"
    "- average the two middle ones\n\n"
    "```python\n"
    "return (ordered[middle - 1] + ordered[middle]) / 2\n"
    "```\n"
)
LONG = "echo " + "x" * 230


@pytest.fixture
def term(pty_cairn):
    """``term(*args, cols=70, color=True, env={})``: 40 rows, colors on unless asked."""
    return functools.partial(pty_cairn, cols=70, rows=40, color=True)


def screen_lines(child: pexpect.spawn) -> list[str]:
    """What was written, without escape sequences, as the terminal's line segments."""
    text = ANSI.sub("", child.logfile_read.getvalue())
    return [seg for line in text.split("\n") for seg in line.split("\r")]


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)


@pytest.mark.parametrize("cols", [70, 160])
def test_markdown_is_rendered_and_every_line_fits_the_terminal(term, script, cols):
    turns = [
        {"content": "Let me look.", "tool_calls": [call("bash", "b1", command=LONG)]},
        {"content": ANSWER, "sleep": 1.5},
    ]
    child = term("--model", script(turns), "--approval", "bypass", "why does it fail?", cols=cols)
    child.expect("Why the test fails")
    child.expect("average the two middle ones")
    child.expect(r"\d+ in · \d+ out")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    lines = screen_lines(child)
    shown = "\n".join(lines)
    assert "## " not in shown and "**" not in shown and "```" not in shown  # rendered, not raw
    assert "median" in shown and "return (ordered[middle - 1]" in shown
    too_long = [line for line in lines if len(line) > cols]
    assert not too_long, too_long  # nothing wrapped by the terminal: tool lines are cut
    [tool_line] = [line for line in lines if "✓ bash echo xxx" in line]
    assert len(tool_line) == cols and tool_line.endswith("…")
    if cols == 70:  # the long sentence was word-wrapped, not cut
        assert "edge." in shown and any(line.startswith("has to be") or " has " in line for line in lines)


def test_plain_keeps_the_markdown_as_written(term, script):
    child = term("--model", script([{"content": ANSWER}]), "--plain", "explain", cols=160)
    child.expect("average the two middle ones")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    shown = "\n".join(screen_lines(child))
    assert "## Why the test fails" in shown and "**median**" in shown
    assert "\x1b[1m" not in child.logfile_read.getvalue()  # no bold, no colors


def test_timers_advance_on_the_spinner_and_the_running_tool(term, script):
    turns = [
        {
            "content": "",
            "sleep": 2.5,
            "tool_calls": [call("bash", "b1", command="for i in 1 2 3; do echo step $i; sleep 1; done")],
        },
        {"content": "Counted."},
    ]
    child = term("--model", script(turns), "--approval", "bypass", "-v", "count", cols=120)
    style = r"(?:\x1b\[[0-9;]*m)*"  # colors between the label and its timer
    child.expect(rf"thinking{style}  1s")
    child.expect(rf"thinking{style}  2s")
    child.expect(rf"● {style}bash for i in 1 2 3.*?{style}  1s")
    child.expect(r"step 2")  # the last output line under the running tool (-v)
    child.expect(rf"● {style}bash for i in 1 2 3.*?{style}  2s")
    child.expect("Counted.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_several_waiting_calls_are_listed_first_and_marked_after(term, script, workspace):
    turns = [
        {
            "content": "",
            "tool_calls": [
                call("write_file", "w1", file_path="a.txt", content="a"),
                call("bash", "b1", command="python -m unittest -v"),
            ],
        },
        {"content": "Done."},
    ]
    child = term("--model", script(turns), "go", cols=160, color=False)
    child.expect("2 tool calls need your decision:")
    child.expect("write_file a.txt")
    child.expect("bash python -m unittest -v")  # both listed before the first question
    child.expect(r"a always: write_file\(a\.txt\)")  # the exact rule 'a' adds, before the key
    child.expect(MENU_END)
    child.send("y")
    child.expect(r"a always: bash\(python -m unittest -v\)")
    child.expect(MENU_END)
    child.send("n")
    child.expect("what should it do instead")
    child.sendline("not now")
    child.expect("decided:")
    child.expect(r"write_file a\.txt.*→ approved")
    child.expect(r"bash python -m unittest -v.*→ rejected: not now")
    child.expect("Done.")
    child.expect(MENU_END)
    child.sendline("/help")
    child.expect("approval keys")
    child.expect(r"Y / N")
    child.expect(MENU_END)
    child.sendline("/continue")
    child.expect("nothing to continue: the last run finished")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0
    shown = "\n".join(screen_lines(child))
    # typed, in the list of decisions, on the call's line: never repeated under it for the model
    assert shown.count("not now") == 3
    assert "A person rejected this call" not in shown and "Their message" not in shown


def test_a_prompt_on_the_command_line_is_echoed(term, script):
    child = term("--model", script([{"content": "Hi."}]), "hello there", cols=100, color=False)
    child.expect("› hello there")
    child.expect("Hi.")
    child.expect(MENU_END)
    child.sendeof()
    assert finish(child) == 0


def test_kept_background_task_survives_exit_and_is_listed_next_time(term, script, workspace):
    loop = "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.2; done"
    turns = [
        {"content": "", "tool_calls": [call("bash", "b1", command=loop, run_in_background=True)]},
        {"content": "Started."},
    ]
    child = term("--model", script(turns), "--approval", "bypass", "start it", cols=160, color=False)
    child.expect("Started bg-1")
    child.expect("Started.")
    child.expect(MENU_END)
    child.sendeof()
    child.expect("still running")
    child.expect(MENU_END)
    child.send("k")
    child.expect(r"output → (\S+\.log)")
    log = Path(os.path.expanduser(child.match.group(1)))
    assert finish(child) == 0
    pid = int(re.search(r"bg-1-(\d+)\.log", log.name).group(1))
    try:
        size = log.stat().st_size
        time.sleep(3)  # cairn has exited; a task still writing into a pipe would be dead by now
        os.kill(pid, 0)  # still alive
        assert log.stat().st_size > size, "the kept task stopped writing"
        assert "tick 0" in log.read_text()
        nxt = term("--model", script([{"content": "x"}]), cols=160, color=False)
        nxt.expect(MENU_END)
        nxt.sendline("/tasks")
        nxt.expect("kept running by earlier sessions")
        nxt.expect(r"bg-1\s+running\s+pid " + str(pid))
        nxt.expect(MENU_END)
        nxt.sendeof()
        assert finish(nxt) == 0
    finally:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def test_show_renders_the_answer_and_finds_the_latest_session(term, script, run_cairn):
    p = run_cairn("-p", "explain", "--model", script([{"content": ANSWER}]))
    assert p.returncode == 0
    for args in (("show",), ("show", "--last")):
        child = term(*args, cols=70)
        child.expect("Why the test fails")
        assert finish(child) == 0
        shown = "\n".join(screen_lines(child))
        assert "## " not in shown and "**" not in shown and "you › explain" in shown


def test_headless_text_on_a_tty_renders_the_answer_keeps_narration_and_order(term, script, workspace):
    Path(workspace, "a.txt").write_text("alpha\n")
    Path(workspace, "b.txt").write_text("beta\n")
    turns = [
        {
            "content": "First I read both files.",
            "tool_calls": [
                call("read_file", "r1", file_path="a.txt"),
                call("read_file", "r2", file_path="b.txt"),
            ],
        },
        {"content": ANSWER},
    ]
    child = term("-p", "read them", "--model", script(turns), cols=100)
    child.expect("Why the test fails")
    assert finish(child) == 0
    shown = "\n".join(screen_lines(child))
    narration = shown.index("First I read both files.")
    # The lines that stay (✓); the live region above them showed the calls while they ran.
    assert narration < shown.index("✓ read_file a.txt") < shown.index("✓ read_file b.txt")
    assert "## " not in shown and "**" not in shown
