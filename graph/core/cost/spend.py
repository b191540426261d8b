"""The ``reasoning`` node's money: record each model call's usage, pause a run at its budget.

State (checkpointed, see ``cairn.graph.core.state``): ``spend`` is the session's own usage ledger,
``run_spend`` this run's (its own calls plus its sub-agents' since the run started; reset by
each new run), ``agents_spend`` the sub-agents' usage already counted into ``run_spend``.
The budget is checked before a model call, so a run never pauses inside a tool call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cairn.graph.core.cost.ledger import Ledger, add_usage, ledger_cost, merge, subtract
from cairn.graph.core.cost.prices import Pricing


def children_ledger(store: Any, thread_id: str) -> Ledger:
    """The summed ``spend`` of a session's sub-agents (as stored in their checkpoints)."""
    total: Ledger = {}
    for record in store.sessions.children(thread_id):
        total = merge(total, stored_spend(store, record.session_id))
    return total


def stored_spend(store: Any, thread_id: str) -> Ledger:
    """A session's own ``spend`` from its latest checkpoint ({} before its first)."""
    saved = store.saver.get_tuple({"configurable": {"thread_id": thread_id}})
    return dict((saved.checkpoint.get("channel_values") or {}).get("spend") or {}) if saved else {}


def model_name(message: Any, model: Any) -> str:
    """The model that answered (the response says), else the one asked."""
    meta = getattr(message, "response_metadata", None) or {}
    name = meta.get("model_name") or meta.get("model")
    if not name:
        for attr in ("model_name", "model", "model_id"):
            value = getattr(model, attr, None)
            if isinstance(value, str) and value:
                name = value
                break
    return str(name or "unknown")


def run_ledger(state: Mapping[str, Any], store: Any, thread_id: str) -> tuple[Ledger, Ledger]:
    """(this run's ledger with sub-agents' new usage folded in, the sub-agents' total now)."""
    children = children_ledger(store, thread_id)
    fresh = subtract(children, state.get("agents_spend"))
    return merge(state.get("run_spend"), fresh), children


def over_budget(state: Mapping[str, Any], ctx: Any) -> dict[str, Any] | None:
    """The pause (state updates) when this run has spent its ``max_cost``, else None."""
    limit = getattr(ctx, "max_cost", None)
    if limit is None:
        return None
    run, children = run_ledger(state, ctx.store, ctx.thread_id)
    spent = ledger_cost(run, ctx.pricing or Pricing()).amount
    if spent < limit:
        return None
    why = f"this run reached its budget of ${limit:.2f} (spent ${spent:.4f}); continue to allow another"
    return {
        "paused": "budget",
        "pause_reason": why,
        "pending_tool_calls": [],
        "completed_tool_calls": [],
        "run_spend": run,
        "agents_spend": children,
    }


def after_model(state: Mapping[str, Any], ctx: Any, message: Any) -> dict[str, Any]:
    """State updates recording one model call (and sub-agents' usage since the last)."""
    model = model_name(message, ctx.model)
    usage = getattr(message, "usage_metadata", None) or {}
    run, children = run_ledger(state, ctx.store, ctx.thread_id)
    return {
        "spend": add_usage(state.get("spend"), model, usage),
        "run_spend": add_usage(run, model, usage),
        "agents_spend": children,
    }
