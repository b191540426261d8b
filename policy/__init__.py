"""cairn's policy engine: every tool call gets a verdict (allow / ask / deny) with a reason.

```python
from policy import evaluate, load_rules
verdict = evaluate("bash", {"command": "git status"}, workspace=".", rules=load_rules("."))
```

See ``docs/policy.md`` for modes, rule syntax and ``cairn policy check``.
"""

from __future__ import annotations

from policy.errors import PolicyConfigError
from policy.evaluate import evaluate
from policy.levels import MODES, Decision, RiskLevel, Verdict
from policy.rules import Rules
from policy.settings import load_rules
from policy.suggest import suggest_rule
from policy.table import DEFAULT_TOOL_RISK, DEFAULT_UNKNOWN_RISK, PLAN_TOOLS, canonical_tool_name
from policy.urls import check_url

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
    "canonical_tool_name",
    "check_url",
    "evaluate",
    "load_rules",
    "suggest_rule",
]
