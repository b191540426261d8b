"""The CLI's money: ``--max-cost``, ``usage.cost`` in json and stream-json, ``cairn show``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.conftest import call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]

TURNS = [
    {
        "tool_calls": [call("read_file", "r1", file_path="a.txt")],
        "usage": {"input_tokens": 100_000, "cached_input_tokens": 40_000, "output_tokens": 5_000},
    },
    {"content": "read it", "usage": {"input_tokens": 200_000, "output_tokens": 10_000}},
]


@pytest.fixture(autouse=True)
def priced(workspace):
    """The scripted model ("scripted") priced like gpt-4o: the two turns cost $0.25 and $0.60."""
    Path(workspace, "a.txt").write_text("hello\n")
    home = Path(os.environ["CAIRN_HOME"])
    (home / "settings.toml").write_text(
        "[pricing]\nscripted = { input = 2.5, cached_input = 1.25, output = 10.0 }\n"
    )


def test_json_stream_json_and_show_carry_the_cost(run_cairn, script):
    p = run_cairn("-p", "read a.txt", "--model", script(TURNS), "--output-format", "json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert round(doc["usage"]["cost"], 2) == 0.85
    p = run_cairn("-p", "read a.txt", "--model", script(TURNS), "--output-format", "stream-json")
    result = json.loads(p.stdout.strip().splitlines()[-1])
    assert result["type"] == "result" and round(result["usage"]["cost"], 2) == 0.85
    shown = json.loads(run_cairn("show", doc["session_id"], "--json").stdout)
    assert round(shown["cost"]["cost"], 2) == 0.85 and shown["cost"]["currency"] == "USD"
    text = run_cairn("show", doc["session_id"]).stdout
    assert "cost $0.8500 (USD) · 2 model calls" in text
    p = run_cairn("-p", "read a.txt", "--model", script(TURNS))
    assert "$0.8500" in p.stderr + p.stdout  # the usage line of a text run


def test_max_cost_pauses_with_status_budget_and_resumes(run_cairn, script):
    spec = script(TURNS)
    p = run_cairn("-p", "read a.txt", "--model", spec, "--max-cost", "0.2", "--output-format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 1 and doc["status"] == "budget", p.stderr
    assert doc["usage"]["budget"] == 0.2 and doc["usage"]["budget_left"] == 0
    assert "--max-cost" in p.stderr  # the resume hint repeats the budget
    p = run_cairn("resume", doc["session_id"], "-p", "--output-format", "json", "--max-cost", "5")
    again = json.loads(p.stdout)
    assert again["status"] == "done" and round(again["usage"]["cost"], 2) == 0.60
    assert again["usage"]["budget_left"] == pytest.approx(4.40)
    assert run_cairn("-p", "x", "--model", spec, "--max-cost", "-1").returncode == 2
