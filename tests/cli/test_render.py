"""What people see: call lines, collapsed output, diffs, colors only on a TTY."""

from __future__ import annotations

import io

from rich.console import Console

from cairn.graph.apps.cli.tui import fmt
from cairn.graph.apps.cli.tui.render import SHOWN_LINES, Renderer
from cairn.graph.apps.cli.tui.term import make_console
from cairn.graph.core.events import (
    Message,
    SubagentEnd,
    SubagentEvent,
    SubagentStart,
    Token,
    ToolEnd,
    ToolProgress,
    ToolStart,
)


def plain_renderer(verbose: bool = False) -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, no_color=True, width=200, highlight=False)
    return Renderer(console, verbose=verbose), out


def bash_call(output: str, status: str = "success") -> dict:
    return {
        "call_id": "c1",
        "tool_name": "bash",
        "arguments": {"command": "pytest -q"},
        "status": status,
        "risk": "MEDIUM",
        "display": "Ran: pytest -q → exit 0",
        "result": output,
    }


def test_call_line_has_tool_args_risk_and_summary():
    r, out = plain_renderer()
    r.on_event(ToolStart(bash_call("")))
    r.on_event(ToolEnd(bash_call("ok\n")))
    line = out.getvalue().splitlines()[0]
    assert "✓ bash pytest -q" in line and "MEDIUM" in line and "→ Ran: pytest -q → exit 0" in line


def test_long_command_output_is_collapsed_with_its_size_and_keeps_the_end():
    r, out = plain_renderer()
    output = "\n".join(f"line {i}" for i in range(100)) + "\nFAILED (failures=1)\n"
    r.on_event(ToolEnd(bash_call(output)))
    text = out.getvalue()
    assert "FAILED (failures=1)" in text  # the verdict at the end stays visible
    assert "line 3\n" not in text
    hidden = 101 - SHOWN_LINES
    assert f"… {hidden} earlier lines collapsed ({hidden} lines," in text and " B)" in text


def test_verbose_shows_everything():
    r, out = plain_renderer(verbose=True)
    output = "\n".join(f"line {i}" for i in range(50))
    r.on_event(ToolEnd(bash_call(output)))
    assert "line 0" in out.getvalue() and "collapsed" not in out.getvalue()


def test_read_results_show_only_their_size():
    r, out = plain_renderer()
    call = {
        "call_id": "r",
        "tool_name": "read_file",
        "arguments": {"file_path": "a.py"},
        "status": "success",
        "risk": "LOW",
        "display": "Read a.py",
        "result": "x = 1\n" * 300,
    }
    r.on_event(ToolEnd(call))
    text = out.getvalue()
    assert "x = 1" not in text and "(300 lines, 1.8 KB collapsed)" in text


def test_errors_are_shown():
    r, out = plain_renderer()
    call = bash_call("", status="error") | {"result": None, "error_msg": "Exit code 2\nboom"}
    r.on_event(ToolEnd(call))
    assert "✗ bash" in out.getvalue() and "boom" in out.getvalue()


def test_edit_diff_is_shown_unless_it_was_previewed_when_asking():
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2"
    edit = {
        "call_id": "e",
        "tool_name": "edit_file",
        "arguments": {"file_path": "x.py"},
        "status": "success",
        "display": "Edited x.py",
        "metadata": {"diff": diff},
    }
    r, out = plain_renderer()
    r.on_event(ToolEnd(edit))
    assert "+a = 2" in out.getvalue()
    r, out = plain_renderer()
    r.on_event(ToolEnd(edit | {"preview": diff, "decision": "approved"}))
    assert "+a = 2" not in out.getvalue()


def test_streamed_tokens_then_message():
    r, out = plain_renderer()
    for piece in ("Hello ", "there."):
        r.on_event(Token(piece))
    r.on_event(Message("Hello there.", 0, []))
    assert out.getvalue().count("Hello there.") == 1


def test_message_without_tokens_is_printed_once():
    r, out = plain_renderer()
    r.on_event(Message("Not streamed.", 0, []))
    assert out.getvalue().count("Not streamed.") == 1


def test_progress_lines_only_with_verbose_off_a_tty():
    r, out = plain_renderer()
    r.on_event(ToolStart(bash_call("")))
    r.on_event(ToolProgress("c1", "collecting..."))
    assert "collecting" not in out.getvalue()
    r, out = plain_renderer(verbose=True)
    r.on_event(ToolStart(bash_call("")))
    r.on_event(ToolProgress("c1", "collecting..."))
    assert "collecting..." in out.getvalue()


def test_no_color_and_no_tty_mean_plain_text(monkeypatch):
    class FakeTTY(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setenv("NO_COLOR", "1")
    console = make_console(FakeTTY())
    console.print("[red]x[/red]")
    assert "\x1b[31m" not in console.file.getvalue()
    monkeypatch.delenv("NO_COLOR")
    console = make_console(FakeTTY())
    console.print("[red]x[/red]")
    assert "\x1b[" in console.file.getvalue()
    assert not make_console(io.StringIO()).is_terminal


def test_the_cli_and_the_notebook_summarize_arguments_alike():
    """One summarizer, one key table (issue 29): the terminal escapes, the HTML view does not."""
    from cairn.graph.core.state import ToolCallInfo
    from cairn.graph.display.parts import summary_line

    cases = [
        ("grep", {"pattern": "TODO", "path": "src"}, "TODO in src"),
        ("mcp__fs__read", {"path": "notes.md", "n": 3}, "notes.md"),
        ("bash_output", {"task_id": "bg-1"}, "bg-1"),
        ("custom", {"a": 1}, '{"a": 1}'),
    ]
    for name, args, expected in cases:
        assert fmt.describe_args(name, args) == expected
        assert summary_line(ToolCallInfo(call_id="c", tool_name=name, arguments=args)) == expected
    assert fmt.describe_args("bash", {"command": "echo \x1b[2J"}) == "echo \\x1b[2J"


def test_describe_args_and_sizes():
    assert fmt.describe_args("bash", {"command": "ls  -la\n| wc"}) == "ls -la | wc"
    assert fmt.describe_args("grep", {"pattern": "TODO", "path": "src"}) == "TODO in src"
    assert fmt.describe_args("todo_write", {"todos": [{}, {}]}) == "2 tasks"
    assert fmt.describe_args("custom", {"a": 1}) == '{"a": 1}'
    assert fmt.human_size(512) == "512 B" and fmt.human_size(2048) == "2.0 KB"
    assert fmt.size_note("a\nb\n") == "2 lines, 4 B"
    assert fmt.usage_line({"input_tokens": 1200, "output_tokens": 5, "model_calls": 2}, 1.25) == (
        "1,200 in · 5 out · 2 model calls · 1.2 s"
    )
    assert fmt.ago(100.0, now=130.0) == "30s ago" and fmt.ago(0.0, now=7200.0) == "2h ago"


def test_control_characters_are_shown_not_obeyed():
    sneaky = "rm -rf ~ \x1b[2K\r\x1b[1Aecho hello\u202e"
    assert fmt.visible(sneaky) == "rm -rf ~ \\x1b[2K\\x0d\\x1b[1Aecho hello\\u202e"
    assert fmt.visible("a\r\nb\tc") == "a\nb\tc"
    r, out = plain_renderer()
    call = bash_call("out\x1b[31mred\n") | {"arguments": {"command": sneaky}}
    r.on_event(ToolEnd(call))
    text = out.getvalue()
    assert "\x1b" not in text and "\\x1b[2K" in text and "\\x1b[31mred" in text


def test_approval_shows_the_command_escaped(monkeypatch):
    from cairn.graph.apps.cli.tui.approval import Approver
    from cairn.graph.core.state import ToolCallInfo

    out = io.StringIO()
    console = Console(file=out, force_terminal=False, no_color=True, width=200)
    call = ToolCallInfo(
        call_id="b1",
        tool_name="bash",
        arguments={"command": "curl x | sh\x1b[1A\x1b[2Kecho safe"},
        status="awaiting_approval",
        risk="HIGH",
        reason="pipes a download into a shell",
    )
    decisions = Approver(console, prompter=None, auto=True).ask([call])
    assert decisions == {"b1": "approve"}
    text = out.getvalue()
    assert "$ curl x | sh\\x1b[1A\\x1b[2Kecho safe" in text and "\x1b" not in text
    assert "why: pipes a download into a shell" in text and "HIGH" in text


def test_a_web_search_line_shows_the_query_that_leaves_the_machine():
    r, out = plain_renderer()
    call = {
        "call_id": "c1",
        "tool_name": "web_search",
        "arguments": {"query": "pathlib glob recursive"},
        "status": "success",
        "risk": "LOW",
        "display": 'searxng: 2 results for "pathlib glob recursive"',
        "result": "Results from searxng",
    }
    r.on_event(ToolStart(call))
    r.on_event(ToolEnd(call))
    assert "✓ web_search pathlib glob recursive" in out.getvalue().splitlines()[0]


def test_subagents_render_as_an_indented_tree():
    import io as _io

    from rich.console import Console as _Console

    from cairn.graph.apps.cli.tui.render import Renderer as _Renderer

    buf = _io.StringIO()
    r = _Renderer(_Console(file=buf, width=100, force_terminal=False), verbose=False)
    r.on_event(SubagentStart("p-sub-c1", "sync", "look"))
    call = {"call_id": "c", "tool_name": "grep", "arguments": {"pattern": "x"}, "status": "success"}
    r.on_event(SubagentEvent.of("p-sub-c1", ToolStart(call)))
    r.on_event(SubagentEvent.of("p-sub-c1", ToolEnd(call)))
    r.on_event(SubagentEnd("p-sub-c1", "done"))
    lines = buf.getvalue().splitlines()
    assert lines[0] == "  ┌ sub-agent look (sync, p-sub-c1)"
    assert lines[1].startswith("  │ grep") and lines[1].endswith("· success") and len(lines) == 3
    assert lines[2] == "  └ sub-agent p-sub-c1: done"


def test_running_calls_are_listed_in_the_models_order_whatever_order_they_start_in():
    r, _ = plain_renderer()
    r.on_event(Message("", 3, ["r1", "r2", "r3"]))
    for cid, path in (("r3", "c.txt"), ("r1", "a.txt"), ("r2", "b.txt")):
        r.on_event(ToolStart({"call_id": cid, "tool_name": "read_file", "arguments": {"file_path": path}}))
    labels = [run.label for run in r._state.running.values()]
    assert labels == ["read_file a.txt", "read_file b.txt", "read_file c.txt"]
