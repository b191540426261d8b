"""Costs right to the cent on runs with known usage, sub-agents included; budgets pause and resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.apps.cli.tui import fmt
from cairn.graph.core.cost import Price, Pricing, parse_pricing
from cairn.graph.core.cost.config import parse_budget
from cairn.graph.core.cost.report import cost_lines, session_cost
from cairn.graph.models.scripted import ScriptedChatModel
from tests.cost.models import CHILD_COSTS, PARENT_COSTS, ParentAndAgentModel


def _script(model: str = "gpt-4o") -> ScriptedChatModel:
    turns = [
        {
            "tool_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}, "id": "r1"}],
            "usage": {"input_tokens": 100_000, "cached_input_tokens": 40_000, "output_tokens": 5_000},
        },
        {"content": "done reading", "usage": {"input_tokens": 200_000, "output_tokens": 10_000}},
    ]
    return ScriptedChatModel(turns=turns, model_name=model)


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    (root / "lib").mkdir()
    (root / "lib" / "code.py").write_text("def target():\n    pass\n")
    return root


def test_price_lookup_by_name_prefix_and_overrides():
    pricing = Pricing()
    assert pricing.price("gpt-4o-2024-08-06") == pricing.price("gpt-4o")
    assert pricing.price("openai/gpt-4o-mini").input == 0.15  # the longest name wins
    assert pricing.price("gpt-4omni") is None and pricing.price("llama-local") is None
    assert pricing.price("scripted") == Price(0.0, 0.0, 0.0)  # a replayed script costs nothing
    custom = parse_pricing(
        [{"llama-local": {"input": 1, "output": 2}}], {"gpt-4o": {"input": 1, "output": 1}}
    )
    assert custom.price("llama-local") == Price(1.0, 2.0, None)
    assert custom.price("gpt-4o").output == 1.0
    with pytest.raises(ValueError, match="input must be a number"):
        parse_pricing([{"m": {"input": -1, "output": 1}}])
    with pytest.raises(ValueError, match="unknown keys"):
        parse_pricing([{"m": {"input": 1, "output": 1, "cache": 1}}])
    assert parse_budget([{"max_cost_per_run": 2}, {"max_cost_per_agent": 0.5}]).max_cost_per_run == 2.0
    # the project's table (after the user's) may lower a budget, never raise it
    assert parse_budget([{"max_cost_per_run": 2}, {"max_cost_per_run": 50}]).max_cost_per_run == 2.0
    assert parse_budget([{"max_cost_per_run": 2}, {"max_cost_per_run": 1}]).max_cost_per_run == 1.0
    assert parse_budget([{}, {"max_cost_per_agent": 0.5}]).max_cost_per_agent == 0.5
    with pytest.raises(ValueError, match="greater than 0"):
        parse_budget([{"max_cost_per_run": 0}])


def test_scripted_run_costs_right_to_the_cent(ws, db_location):
    s = Session(ws, model=_script(), db=db_location)
    r = s.send("read a.txt")
    assert r.status == "done", r
    # (60k × 2.50 + 40k × 1.25 + 5k × 10) / 1M = 0.25; (200k × 2.50 + 10k × 10) / 1M = 0.60
    assert round(r.usage["cost"], 2) == 0.85 and "price_unknown" not in r.usage
    assert r.to_json()["usage"]["cost"] == pytest.approx(0.85)
    assert "$0.8500" in fmt.usage_line(r.usage, r.elapsed_s)
    assert "$0.8500" in repr(r)  # the notebook's result header
    report = session_cost(s.store, s.id, s.state, s.core.pricing)
    assert [(m["model"], m["cost"]) for m in report["by_model"]] == [("gpt-4o", pytest.approx(0.85))]
    assert report["by_model"][0]["cached_input_tokens"] == 40_000
    s.close()


def test_unknown_model_says_price_unknown_never_a_number(ws, db_location):
    s = Session(ws, model=_script("mystery-7b"), db=db_location)
    r = s.send("read a.txt")
    assert r.usage["cost"] is None and r.usage["price_unknown"] == ["mystery-7b"]
    assert r.usage["input_tokens"] == 300_000
    assert "price unknown" in fmt.usage_line(r.usage, r.elapsed_s)
    s.close()
    priced = Session(
        ws, model=_script("mystery-7b"), db=db_location, pricing={"mystery-7b": {"input": 1.0, "output": 2.0}}
    )
    r = priced.send("read a.txt")
    assert round(r.usage["cost"], 2) == round((300_000 * 1.0 + 15_000 * 2.0) / 1e6, 2)
    priced.close()


def test_pricing_from_settings_file(ws, tmp_path, monkeypatch, db_location):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("CAIRN_HOME", str(home))
    (home / "settings.toml").write_text('[pricing]\n"mystery-7b" = { input = 10, output = 0 }\n')
    s = Session(ws, model=_script("mystery-7b"), db=db_location)
    r = s.send("read a.txt")
    assert round(r.usage["cost"], 2) == 3.00
    s.close()


def test_budget_pauses_between_steps_and_resumes(ws, db_location):
    s = Session(ws, model=_script(), db=db_location, max_cost=0.20)
    r = s.send("read a.txt")
    assert r.status == "budget" and "$0.20" in (r.error or "")
    assert [c.status for c in r.tool_calls] == ["success"], "the tool call finished before the pause"
    assert round(r.usage["cost"], 2) == 0.25
    again = Session.resume(s.id, db=db_location, model=_script(), max_cost=0.20)
    s.close()
    r = again.continue_()
    assert r.status == "done" and r.text == "done reading"
    assert round(r.usage["cost"], 2) == 0.60
    again.close()


def test_budget_from_settings(ws, db_location):
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text("[budget]\nmax_cost_per_run = 0.1\n")
    s = Session(ws, model=_script(), db=db_location)
    assert s.core.max_cost == 0.1
    assert s.send("read a.txt").status == "budget"
    s.close()


def test_subagent_costs_roll_up(ws, tmp_path, db_location):
    s = Session(ws, model=ParentAndAgentModel(), db=db_location)
    r1 = s.send("where is target?")
    assert r1.status == "awaiting_approval" and r1.pending[0].tool_name == "agent"
    r2 = s.approve()
    assert r2.status == "done", r2
    assert round(r1.usage["cost"], 2) == PARENT_COSTS[0]
    # the sub-agent ran inside this run: its cost is in the run's
    assert round(r2.usage["cost"], 4) == round(PARENT_COSTS[1] + sum(CHILD_COSTS), 4)
    report = session_cost(s.store, s.id, s.state, s.core.pricing)
    assert round(report["cost"], 4) == round(sum(PARENT_COSTS) + sum(CHILD_COSTS), 4)
    by_model = {m["model"]: m["cost"] for m in report["by_model"]}
    assert round(by_model["gpt-4o-mini"], 4) == round(sum(CHILD_COSTS), 4)
    [agent] = report["by_agent"]
    assert agent["agent_id"] == f"{s.id}-sub-t1" and round(agent["cost"], 4) == round(sum(CHILD_COSTS), 4)
    lines = cost_lines(report)
    assert lines[0].startswith("session cost: $0.8785") and any("sub-agent" in ln for ln in lines)
    s.close()


def test_subagent_budget_pauses_the_subagent(ws, tmp_path, db_location):
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text("[budget]\nmax_cost_per_agent = 0.01\n")
    s = Session(ws, model=ParentAndAgentModel(), db=db_location)
    s.send("where is target?")
    r = s.approve()
    child = s.store.sessions.get(f"{s.id}-sub-t1")
    assert child.status == "budget"
    [agent] = session_cost(s.store, s.id, s.state, s.core.pricing)["by_agent"]
    assert round(agent["cost"], 4) == CHILD_COSTS[0], "the sub-agent stopped before its second call"
    assert r.status == "done"
    s.close()


def test_slash_cost_lists_spend_by_model_and_budget(ws, db_location):
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from cairn.graph.apps.cli.tui import slash

    s = Session(ws, model=_script(), db=db_location, max_cost=5)
    out = io.StringIO()
    repl = SimpleNamespace(session=s, console=Console(file=out, width=200))
    s.send("read a.txt")
    slash.handle("/cost", repl)
    text = out.getvalue()
    assert "session cost: $0.8500 (USD)" in text
    assert "gpt-4o: $0.8500 · 300,000 in (40,000 cached) · 15,000 out · 2 calls" in text
    assert "budget per run: $5.00" in text
    s.close()


def test_usage_of_several_runs_adds_costs_not_budgets():
    from cairn.graph.core.cost.report import merge_usage

    merged = merge_usage(
        [
            {"input_tokens": 5, "cost": None, "price_unknown": ["x"], "budget": 1.0, "budget_left": 0.5},
            {
                "input_tokens": 7,
                "cost": 0.25,
                "price_unknown": ["x", "y"],
                "budget": 1.0,
                "budget_left": 0.25,
            },
        ]
    )
    assert merged == {
        "input_tokens": 12,
        "cost": 0.25,
        "price_unknown": ["x", "y"],
        "budget": 1.0,
        "budget_left": 0.25,
    }
    assert merge_usage([{"cost": None}, {"cost": None}])["cost"] is None


def test_a_project_file_cannot_change_prices(ws, db_location):
    cairn_dir = Path(ws) / ".cairn"
    cairn_dir.mkdir(exist_ok=True)
    (cairn_dir / "settings.toml").write_text('[pricing]\n"gpt-4o" = { input = 0, output = 0 }\n')
    s = Session(ws, model=_script(), db=db_location)
    try:
        assert s.core.pricing.price("gpt-4o").output > 0  # the built-in price, not the project's 0
    finally:
        s.close()
