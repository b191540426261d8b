"""``cairn resume`` decision flags → ``Session.decide`` input, and the pause hints."""

from __future__ import annotations

import argparse

from graph.cli.options import Options
from graph.cli.output import pause_hint
from graph.cli.resume import build_decisions
from graph.result import RunResult
from graph.state import ToolCallInfo

ASKING = ToolCallInfo(
    call_id="a1", tool_name="write_file", arguments={"file_path": "x"}, status="awaiting_approval"
)
ASKING2 = ToolCallInfo(
    call_id="a2", tool_name="bash", arguments={"command": "rm x"}, status="awaiting_approval"
)
STOPPED = ToolCallInfo(call_id="s1", tool_name="bash", arguments={"command": "sleep 9"}, status="interrupted")


def flags(**kw) -> argparse.Namespace:
    return argparse.Namespace(**({"approve": [], "reject": [], "retry": [], "cancel": []} | kw))


def test_all_expands_to_the_calls_each_decision_applies_to():
    pending = [ASKING, ASKING2, STOPPED]
    assert build_decisions(flags(approve=["all"], retry=["all"]), pending) == {
        "a1": "approve",
        "a2": "approve",
        "s1": "retry",
    }
    assert build_decisions(flags(reject=["all:not now"], cancel=["all"]), pending) == {
        "a1": {"reject": "not now"},
        "a2": {"reject": "not now"},
        "s1": "cancel",
    }


def test_reject_with_and_without_a_message():
    got = build_decisions(flags(reject=["a1:use pathlib: it is nicer", "a2"]), [ASKING, ASKING2])
    assert got == {"a1": {"reject": "use pathlib: it is nicer"}, "a2": "reject"}


def test_unknown_ids_are_passed_through_for_the_session_to_refuse():
    assert build_decisions(flags(approve=["zz"]), [ASKING]) == {"zz": "approve"}


def test_pause_hints_name_the_session_and_the_exact_commands():
    opts = Options(explicit=("--db", "/tmp/x.db"))
    resume = lambda *extra: opts.resume_command("abc123", *extra)  # noqa: E731
    r = RunResult(session_id="abc123", status="awaiting_approval", pending=[ASKING])
    text = "\n".join(pause_hint(r, resume))
    assert "abc123" in text and "cairn resume abc123 --db /tmp/x.db --approve all" in text
    assert "--reject 'a1:what to do instead'" in text
    r = RunResult(session_id="abc123", status="interrupted", pending=[STOPPED])
    text = "\n".join(pause_hint(r, resume))
    assert "--retry all" in text and "--cancel all" in text and "sleep 9" in text
    r = RunResult(session_id="abc123", status="error", error="boom")
    assert "cairn resume abc123 --db /tmp/x.db -p" in "\n".join(pause_hint(r, resume))
    assert pause_hint(RunResult(session_id="abc123", status="done"), resume) == []
