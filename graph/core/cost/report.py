"""What runs and sessions cost, for ``usage.cost``, ``cairn show``, ``/cost`` and exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.graph.core.cost.ledger import Ledger, ledger_cost, merge, subtract
from cairn.graph.core.cost.prices import CURRENCY, Pricing
from cairn.graph.core.cost.spend import children_ledger, run_ledger, stored_spend


def total_ledger(store: Any, thread_id: str, values: Mapping[str, Any]) -> Ledger:
    """A session's own usage plus its sub-agents'."""
    return merge(values.get("spend"), children_ledger(store, thread_id))


def run_cost_fields(
    store: Any,
    thread_id: str,
    values: Mapping[str, Any],
    before: Ledger | None,
    pricing: Pricing | None,
    max_cost: float | None = None,
) -> dict[str, Any]:
    """``usage`` keys for a run: ``cost`` (and ``price_unknown``) of what it spent since
    ``before``; with a budget, ``budget`` and ``budget_left`` (of the run's budget)."""
    pricing = pricing or Pricing()
    if before is None:
        out: dict[str, Any] = {"cost": 0.0}
    else:
        spent = subtract(total_ledger(store, thread_id, values), before)
        out = ledger_cost(spent, pricing).usage_fields()
    if max_cost is not None:
        run, _ = run_ledger(values, store, thread_id)
        out["budget"] = max_cost
        out["budget_left"] = round(max(0.0, max_cost - ledger_cost(run, pricing).amount), 6)
    return out


def merge_usage(usages: list[Mapping[str, Any]]) -> dict[str, Any]:
    """The usage of several runs as one: counts and ``cost`` summed (``None`` only when every run's
    was), ``price_unknown`` united, ``budget``/``budget_left`` the last run's."""
    out: dict[str, Any] = {}
    unknown: list[str] = []
    costs: list[float | None] = []
    for usage in usages:
        for key, value in usage.items():
            if key == "cost":
                costs.append(value)
            elif key == "price_unknown":
                unknown += [m for m in value if m not in unknown]
            elif key in ("budget", "budget_left"):
                out[key] = value
            elif isinstance(value, int | float):
                out[key] = out.get(key, 0) + value
    if costs:
        known = [c for c in costs if c is not None]
        out["cost"] = round(sum(known), 6) if known else None
    if unknown:
        out["price_unknown"] = unknown
    return out


def session_cost(
    store: Any, thread_id: str, values: Mapping[str, Any], pricing: Pricing | None
) -> dict[str, Any]:
    """The session's spend: total, by model, and by sub-agent (each with its own by-model)."""
    import json

    pricing = pricing or Pricing()
    own = values.get("spend") or {}
    agents = []
    for record in store.sessions.children(thread_id):
        ledger = stored_spend(store, record.session_id)
        cost = ledger_cost(ledger, pricing)
        try:
            description = json.loads(record.agent or "{}").get("description", "")
        except (ValueError, AttributeError):
            description = ""
        agents.append(
            {
                "agent_id": record.session_id,
                "description": description,
                **cost.usage_fields(),
                "by_model": _rows(ledger, cost.by_model),
            }
        )
    total = merge(own, children_ledger(store, thread_id))
    cost = ledger_cost(total, pricing)
    return {
        "currency": CURRENCY,
        **cost.usage_fields(),
        "by_model": _rows(total, cost.by_model),
        "by_agent": agents,
    }


def _rows(ledger: Ledger, amounts: Mapping[str, float | None]) -> list[dict[str, Any]]:
    return [
        {"model": m, **row, "cost": None if amounts.get(m) is None else round(amounts[m] or 0.0, 6)}
        for m, row in sorted(ledger.items())
    ]


def money(amount: float | None) -> str:
    """``$0.0123`` (4 decimals under a dollar, else 2); ``price unknown`` for None."""
    if amount is None:
        return "price unknown"
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


def cost_text(usage: Mapping[str, Any]) -> str | None:
    """The cost part of a usage line (``$0.0123``; ``price unknown (model)``), None if not reported."""
    if "cost" not in usage:
        return None
    unknown = usage.get("price_unknown") or []
    if usage.get("cost") is None:
        return "price unknown"
    text = money(usage["cost"])
    if unknown:
        text = f"{text} + price unknown ({', '.join(unknown)})"
    if usage.get("budget_left") is not None:
        text += f" ({money(usage['budget_left'])} of the run's {money(usage.get('budget'))} budget left)"
    return text


def cost_lines(report: Mapping[str, Any]) -> list[str]:
    """``/cost``: the session's spend by model and by sub-agent."""
    lines = [f"session cost: {cost_text(report)} ({report.get('currency', CURRENCY)})"]
    for row in report.get("by_model") or []:
        lines.append(
            f"  {row['model']}: {money(row['cost'])} · {row['input_tokens']:,} in"
            f" ({row['cached_input_tokens']:,} cached) · {row['output_tokens']:,} out · {row['calls']} calls"
        )
    for agent in report.get("by_agent") or []:
        lines.append(f"  sub-agent {agent['agent_id'][-12:]} {agent['description']!r}: {cost_text(agent)}")
    return lines
