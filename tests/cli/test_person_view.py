"""Person-facing text: no lines written for the model, outcomes named plainly, Markdown blocks."""

from __future__ import annotations

import io

from rich.console import Console

from cairn.graph.apps.cli.tui import person
from cairn.graph.apps.cli.tui.mdstream import BlockSplitter
from cairn.graph.apps.cli.tui.render import Renderer
from cairn.graph.core.events import Message, ToolEnd, ToolStart


def test_model_directed_lines_stderr_prefixes_and_exit_code_are_dropped():
    text = "ok\n[stderr] warning: x\nExit code: 0\nDuration: 6.1s\n"
    assert person.output(text) == "ok\nwarning: x"
    started = (
        "Started background task bg-1 (pid 42) in .: npm start\n"
        "It runs until it exits, you stop it, or the session ends.\n"
        'Read its output with bash_output(task_id="bg-1"); stop it with kill_bash(task_id="bg-1").'
    )
    assert person.output(started) == "Started background task bg-1 (pid 42) in .: npm start"
    invalid = "Invalid arguments for read_file:\n- file_path: required field is missing\nFix the arguments and call the tool again."
    assert "Fix the arguments" not in person.output(invalid)


def test_outcomes_and_labels():
    denied = {
        "status": "cancelled",
        "error_msg": "Denied by policy: never",
        "display": "Denied by policy: never",
    }
    rejected = {
        "status": "cancelled",
        "decision": "rejected: use pathlib",
        "error_msg": "A person rejected this call.",
    }
    stopped = {"status": "interrupted", "display": "Running: sleep 9 — cancelled after 2.0s"}
    assert person.outcome(denied) == "denied" and person.outcome(rejected) == "rejected"
    assert person.summary(rejected) == "rejected: use pathlib" and person.details(rejected) == ""
    assert person.summary(stopped) == "Running: sleep 9 — interrupted after 2.0s"
    assert person.decision_label({"decision": "approved always (bash(pytest:*))"}) == "always: bash(pytest:*)"
    assert person.decision_label({"decision": "rejected: no"}) == ""


def plain() -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    return Renderer(Console(file=out, force_terminal=False, no_color=True, width=200)), out


def test_call_lines_have_no_nested_brackets_and_say_a_rejection_once():
    r, out = plain()
    call = {
        "call_id": "w1",
        "tool_name": "write_file",
        "arguments": {"file_path": "a.txt"},
        "status": "cancelled",
        "decision": "rejected: use notes.md",
        "error_msg": "A person rejected this call. Their message: use notes.md",
        "display": "A person rejected this call. Their message: use notes.md",
    }
    r.on_event(ToolEnd(call))
    always = {
        "call_id": "b1",
        "tool_name": "bash",
        "arguments": {"command": "pytest"},
        "status": "success",
        "decision": "approved always (bash(pytest:*))",
        "display": "Ran: pytest → exit 0 (1.0s)",
        "result": "3 passed\nExit code: 0",
    }
    r.on_event(ToolEnd(always))
    text = out.getvalue()
    assert text.count("use notes.md") == 1 and "A person rejected" not in text
    assert "· always: bash(pytest:*)" in text and "((" not in text and "))" not in text
    assert text.count("exit 0") == 1 and "Exit code" not in text


def test_tool_lines_print_in_the_models_order():
    r, out = plain()
    r.on_event(Message("", 2, ["a", "b"]))
    for cid in ("a", "b"):
        r.on_event(ToolStart({"call_id": cid, "tool_name": "ls", "arguments": {"path": cid}}))
    done = {"tool_name": "ls", "status": "success", "display": "listed"}
    r.on_event(ToolEnd({**done, "call_id": "b", "arguments": {"path": "b"}}))
    assert "ls b" not in out.getvalue()  # waits for a
    r.on_event(ToolEnd({**done, "call_id": "a", "arguments": {"path": "a"}}))
    text = out.getvalue()
    assert text.index("ls a") < text.index("ls b")


def test_blocks_close_at_blank_lines_outside_code_fences():
    s = BlockSplitter()
    blocks = []
    for chunk in ["# T", "itle\n\npara", " one\n", "\n```py\nx = 1\n\ny", " = 2\n```\n", "- a\n- b"]:
        blocks += s.feed(chunk)
    assert blocks == ["# Title", "para one", "```py\nx = 1\n\ny = 2\n```"]
    assert s.draft == "- a\n- b" and s.flush() == "- a\n- b" and s.draft == ""
