"""The ``[pricing]`` and ``[budget]`` settings, parsed from already-loaded TOML tables.

```toml
[budget]
max_cost_per_run = 2.50     # dollars; a run that reaches it pauses with status "budget"
max_cost_per_agent = 0.50   # each sub-agent's own budget (default: the run's)
```

``parse_budget`` is pure (one table per source: user file, then project file; later wins).
``settings_tables`` is the one place this package gets those tables, through the settings
reader the rest of cairn uses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn.errors import ConfigError
from cairn.graph.core.cost.prices import Pricing, parse_pricing


@dataclass(frozen=True)
class BudgetConfig:
    max_cost_per_run: float | None = None
    max_cost_per_agent: float | None = None


def parse_amount(value: Any, what: str) -> float | None:
    """A budget in dollars: a number > 0, or ``None`` (no budget)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{what} must be an amount in dollars greater than 0, not {value!r}")
    return float(value)


def parse_budget(tables: Iterable[Mapping[str, Any] | None]) -> BudgetConfig:
    """The ``[budget]`` tables, the user's first: a later table (the project's) may only
    tighten a budget (set one where there is none, or a lower one), never raise it."""
    run = agent = None
    for table in tables:
        if not table:
            continue
        unknown = set(table) - {"max_cost_per_run", "max_cost_per_agent"}
        if unknown:
            raise ConfigError(f"[budget]: unknown keys {sorted(unknown)}")
        if "max_cost_per_run" in table:
            run = _lower(run, parse_amount(table["max_cost_per_run"], "[budget] max_cost_per_run"))
        if "max_cost_per_agent" in table:
            agent = _lower(agent, parse_amount(table["max_cost_per_agent"], "[budget] max_cost_per_agent"))
    return BudgetConfig(run, agent)


def _lower(current: float | None, new: float | None) -> float | None:
    if current is None or new is None:
        return new if current is None else current
    return min(current, new)


def settings_tables(workspace: Path, name: str) -> list[dict[str, Any]]:
    """The ``[name]`` table of the user settings file, then of the project's (missing: {})."""
    from cairn.settings_files import read_tables

    tables = read_tables(workspace)
    out = []
    for data in (tables.user, tables.project):
        table = data.get(name)
        out.append(table if isinstance(table, dict) else {})
    return out


def session_cost_setup(
    workspace: Path, pricing: Mapping[str, Any] | Pricing | None, max_cost: float | None
) -> tuple[Pricing, float | None, BudgetConfig]:
    """The session's pricing, its per-run budget (argument over settings) and the budget table."""
    if isinstance(pricing, Pricing):
        priced = pricing
    else:
        # Prices from the user's file only: a project's [pricing] could make spending look free.
        priced = parse_pricing(settings_tables(workspace, "pricing")[:1], pricing)
    budget = parse_budget(settings_tables(workspace, "budget"))
    run = parse_amount(max_cost, "max_cost") if max_cost is not None else budget.max_cost_per_run
    return priced, run, budget
