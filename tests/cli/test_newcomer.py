"""The rough edges a newcomer hit in the first hour, each closed with a test."""

from __future__ import annotations

import json
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
