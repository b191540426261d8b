"""``/cost`` and the cost line of ``cairn show``: a session's spend, by model and by sub-agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from cairn.graph.core.cost.config import session_cost_setup
from cairn.graph.core.cost.report import cost_lines, cost_text, session_cost


def stored_cost(store: Any, session_id: str, values: dict[str, Any], workspace: str) -> dict[str, Any]:
    """The spend of a stored session, priced with the settings of its workspace (a bad
    ``[pricing]`` table is reported, not raised: showing a session never fails over it)."""
    try:
        pricing = session_cost_setup(Path(workspace), None, None)[0]
    except ValueError as exc:
        return {"error": str(exc)}
    return session_cost(store, session_id, values, pricing)


def cost_summary(report: dict[str, Any]) -> str:
    """One line: ``cost $0.1234 (USD) · 3 model calls``, or why there is no number."""
    if "error" in report:
        return f"cost: {report['error']}"
    calls = sum(row.get("calls", 0) for row in report.get("by_model") or [])
    if not calls:
        return "cost: no model calls yet"
    agents = len(report.get("by_agent") or [])
    tail = f" · {agents} sub-agent{'s' if agents != 1 else ''}" if agents else ""
    return f"cost {cost_text(report)} ({report.get('currency', 'USD')}) · {calls} model calls{tail}"


def show_cost(repl: Any) -> None:
    session = getattr(repl, "session", None)
    console = repl.console
    if session is None:
        console.print(Text("  nothing spent yet: no message was sent", style="dim"))
        return
    report = session_cost(session.store, session.id, session.state, session.core.pricing)
    for line in cost_lines(report):
        console.print(Text(f"  {line}", style="dim"), soft_wrap=True)
    limit = session.core.max_cost
    if limit is not None:
        console.print(Text(f"  budget per run: ${limit:.2f}", style="dim"))
