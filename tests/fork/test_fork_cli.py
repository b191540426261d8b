"""``cairn resume SESSION --fork [--at CHECKPOINT | --turn N]``."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]

TURNS = [{"content": "First answer."}, {"content": "Second answer."}, {"content": "Forked answer."}]


def test_resume_fork_from_a_turn(run_cairn, script):
    spec = script(TURNS)
    first = json.loads(run_cairn("-p", "one", "--model", spec, "--output-format", "json").stdout)
    sid = first["session_id"]
    run_cairn("resume", sid, "-p", "two", "--output-format", "json")
    before = json.loads(run_cairn("show", sid, "--json").stdout)["messages"]
    p = run_cairn("resume", sid, "--fork", "--turn", "2", "-p", "two, differently", "--output-format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["session_id"] != sid and f"forked session {sid} at before turn 2" in p.stderr
    assert doc["result"] == "Second answer."  # the scripted model answers by position in the conversation
    forked = json.loads(run_cairn("show", doc["session_id"], "--json").stdout)["messages"]
    assert [m["content"] for m in forked] == ["one", "First answer.", "two, differently", "Second answer."]
    assert json.loads(run_cairn("show", sid, "--json").stdout)["messages"] == before, "the source untouched"
    p = run_cairn("resume", sid, "--turn", "2", "-p", "x")
    assert p.returncode == 2 and "add --fork" in p.stderr
    p = run_cairn("resume", sid, "--fork", "--at", "nope", "-p", "x")
    assert p.returncode == 2 and "no checkpoint" in p.stderr
