"""cairn's policy engine: every tool call gets a verdict (allow / ask / deny) with a reason.

```python
from cairn.policy import evaluate, load_rules
verdict = evaluate("bash", {"command": "git status"}, workspace=".", rules=load_rules("."))
```

See ``docs/policy.md`` for modes, rule syntax and ``cairn policy check``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.policy.errors import PolicyConfigError
from cairn.policy.evaluate import evaluate
from cairn.policy.levels import MODES, Decision, RiskLevel, Verdict
from cairn.policy.rules import Rules
from cairn.policy.settings import load_rules
from cairn.policy.suggest import always_rule, suggest_rule
from cairn.policy.table import DEFAULT_UNKNOWN_RISK, canonical_tool_name, plan_offers
from cairn.policy.urls import check_url

__all__ = [
    "DEFAULT_TOOL_RISK",
    "DEFAULT_UNKNOWN_RISK",
    "MODES",
    "PLAN_TOOLS",
    "Decision",
    "PolicyConfigError",
    "RiskLevel",
    "Rules",
    "Verdict",
    "always_rule",
    "canonical_tool_name",
    "check_url",
    "evaluate",
    "load_rules",
    "plan_offers",
    "suggest_rule",
]

if TYPE_CHECKING:
    from collections.abc import Mapping

    DEFAULT_TOOL_RISK: Mapping[str, RiskLevel]
    PLAN_TOOLS: frozenset[str]


def __getattr__(name: str) -> Any:
    """``DEFAULT_TOOL_RISK`` and ``PLAN_TOOLS``: derived from the tool classes (``cairn.policy.table``)."""
    if name in ("DEFAULT_TOOL_RISK", "PLAN_TOOLS"):
        from cairn.policy import table

        return getattr(table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
