"""``cairn resume`` decision flags → ``Session.decide`` input, and the pause hints."""

from __future__ import annotations

import argparse
import os

import pytest

from cairn.graph.apps.cli.decision_flags import build_decisions
from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.output import pause_hint
from cairn.graph.core.state import ToolCallInfo
from cairn.graph.session.result import RunResult

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


def test_conflicting_decisions_name_the_call_and_both_flags():
    with pytest.raises(CliError, match="conflicting decisions for s1: --retry all and --cancel s1"):
        build_decisions(flags(retry=["all"], cancel=["s1"]), [STOPPED])
    with pytest.raises(CliError, match="conflicting decisions for a1"):
        build_decisions(flags(approve=["a1"], reject=["a1:no"]), [ASKING])
    # the same decision twice is not a conflict
    assert build_decisions(flags(approve=["a1", "all"]), [ASKING]) == {"a1": "approve"}


def test_all_matching_nothing_and_nothing_pending_are_errors():
    with pytest.raises(CliError, match="--approve all matches nothing: no call is awaiting approval"):
        build_decisions(flags(approve=["all"]), [STOPPED])
    with pytest.raises(CliError, match=r"nothing to decide: .* \(it is done\)"):
        build_decisions(flags(cancel=["c_app"]), [], status="done")


def test_all_after_a_recovery_covers_only_calls_made_before_it():
    # a recovered run may propose new calls: `all` never approves what nobody has seen
    got = build_decisions(flags(approve=["all"]), [ASKING, ASKING2], all_of={"a1"})
    assert got == {"a1": "approve"}


def test_pause_hint_with_several_calls_rejects_all():
    opts = Options()
    resume = lambda *extra: opts.resume_command("abc123", *extra)  # noqa: E731
    r = RunResult(session_id="abc123", status="awaiting_approval", pending=[ASKING, ASKING2])
    text = "\n".join(pause_hint(r, resume))
    assert "--reject 'all:what to do instead'" in text and "a1:" not in text
    mixed = RunResult(session_id="abc123", status="awaiting_approval", pending=[ASKING, STOPPED])
    text = "\n".join(pause_hint(mixed, resume))
    assert "--approve all --retry all" in text and "--reject 'a1:what to do instead' --cancel all" in text


def test_in_memory_sessions_get_no_resume_commands():
    opts = Options(db=":memory:")
    assert opts.in_memory
    resume = lambda *extra: opts.resume_command("abc123", *extra)  # noqa: E731
    for status, pending in (("awaiting_approval", [ASKING]), ("interrupted", [STOPPED]), ("error", [])):
        text = "\n".join(
            pause_hint(RunResult(session_id="abc123", status=status, pending=pending), resume, in_memory=True)
        )
        assert "cairn resume" not in text and "in memory only" in text


def test_a_relative_db_is_absolute_in_resume_commands(tmp_path, monkeypatch):
    from cairn.graph.apps.cli.parsers import main_parser

    monkeypatch.chdir(tmp_path)
    opts = Options.from_args(main_parser().parse_args(["--db", "rel/c.db", "-p", "x"]))
    assert opts.db == os.path.join(str(tmp_path), "rel", "c.db")
    assert f"--db {tmp_path}/rel/c.db" in opts.resume_command("abc")
    assert Options.from_args(main_parser().parse_args(["--db", ":memory:"])).db == ":memory:"
