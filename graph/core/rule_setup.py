"""The policy rules a session runs with: its settings + what the caller passed + custom tools."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from typing import Any

from cairn import policy
from cairn.tools import ToolRegistry, builtin_aliases, builtin_tool_classes
from cairn.tools.base import plan_allows
from cairn.tools.langchain_adapter import LangChainTool


def session_rules(configured: policy.Rules, extra: Any, registry: ToolRegistry) -> Any:
    """The settings' rules (``Settings.rules()``: the project's and the user's files) merged with
    ``extra`` (a ``Rules``, a mapping with allow/ask/deny lists, or an iterable of allow rules)
    and the risk levels / read-only flags of registered non-built-in tools."""
    rules = configured
    if extra is not None:
        rules = rules.merged(_as_rules(extra))
    custom_risk: dict[str, Any] = {}
    read_only: set[str] = set()
    for tool in registry:
        if not is_builtin(tool):
            name = policy_name(tool)
            custom_risk.setdefault(name, tool.risk_level)
            if plan_allows(tool):  # the graph offers it in plan mode: the policy allows it there
                read_only.add(name)
    if custom_risk or read_only:
        rules = dataclasses.replace(
            rules,
            tool_risk={**custom_risk, **dict(rules.tool_risk)},
            read_only_tools=frozenset(rules.read_only_tools) | read_only,
        )
    return rules


@functools.cache
def _builtin_classes() -> frozenset[type]:
    """The built-in tool classes, once (asked about every call of every step)."""
    return frozenset(builtin_tool_classes())


@functools.cache
def _builtin_alias_names() -> frozenset[str]:
    return frozenset(builtin_aliases())


def is_builtin(tool: Any) -> bool:
    return type(tool) in _builtin_classes() and not isinstance(tool, LangChainTool)


def policy_name(tool: Any) -> str:
    """The name the policy judges a tool by.

    The policy maps familiar aliases to built-ins (``search`` → ``grep``, ``fetch`` →
    ``web_fetch``); a custom or MCP tool registered under such a name must not be judged
    as that built-in (a web-search tool judged as a workspace grep would run unasked), so
    it gets a distinct name, unknown to the policy table: MEDIUM unless its risk is set.
    """
    if is_builtin(tool):
        return tool.name
    if tool.name.lower() in _builtin_alias_names() or tool.name in policy.DEFAULT_TOOL_RISK:
        return f"{tool.name}__custom"
    return tool.name


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
