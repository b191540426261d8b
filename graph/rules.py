"""The policy rules a session runs with: settings files + what the caller passed + custom tools."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import policy
from tools import ToolRegistry, Workspace
from tools.langchain_adapter import LangChainTool


def session_rules(workspace: Workspace, extra: Any, registry: ToolRegistry) -> Any:
    """``policy.Rules`` from ``.cairn/settings.toml`` and the user config, merged with ``extra``
    (a ``Rules``, a mapping with allow/ask/deny lists, or an iterable of allow rules) and the
    risk levels / read-only flags of registered non-built-in tools."""
    rules = policy.load_rules(workspace)
    if extra is not None:
        rules = rules.merged(_as_rules(extra))
    custom_risk: dict[str, Any] = {}
    read_only: set[str] = set()
    for tool in registry:
        if isinstance(tool, LangChainTool) or tool.name not in policy.DEFAULT_TOOL_RISK:
            custom_risk.setdefault(tool.name, tool.risk_level)
            if tool.read_only:
                read_only.add(tool.name)
    if custom_risk or read_only:
        rules = dataclasses.replace(
            rules,
            tool_risk={**custom_risk, **dict(rules.tool_risk)},
            read_only_tools=frozenset(rules.read_only_tools) | read_only,
        )
    return rules


def _as_rules(extra: Any) -> Any:
    if isinstance(extra, policy.Rules):
        return extra
    if isinstance(extra, Mapping):
        return policy.Rules(
            allow=tuple(extra.get("allow", ())),
            ask=tuple(extra.get("ask", ())),
            deny=tuple(extra.get("deny", ())),
            tool_risk={k: policy.RiskLevel(v) for k, v in dict(extra.get("tool_risk", {})).items()},
        )
    if isinstance(extra, Iterable) and not isinstance(extra, str):
        return policy.Rules(allow=tuple(extra))
    raise TypeError("rules must be a policy.Rules, a mapping with allow/ask/deny lists, or a list of rules")
