"""The policy table, derived from the tools: each built-in tool's risk, plan-mode facts, path
argument and aliases, as the tool classes declare them (``cairn.tools.builtin_tool_classes``).

Nothing here lists tools by hand: a new tool declares ``risk_level``, ``plan_mode``,
``actions`` and ``path_arg`` on its class and the policy knows it.  Refinement of a call happens
in :mod:`cairn.policy.evaluate` (bash through the shell classifier, file tools through the path
checks, ``web_fetch`` through the URL checks, per-action tools by the action's facts).  Anything
not built in (MCP and custom tools) is ``DEFAULT_UNKNOWN_RISK`` unless ``[tool_risk]`` says
otherwise.

``DEFAULT_TOOL_RISK``, ``PLAN_TOOLS``, ``READ_TOOLS``, ``EDIT_TOOLS`` and ``PATH_ARG`` stay
importable; they are computed from the tool classes on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from cairn.policy.levels import RiskLevel
from cairn.tools.base import Tool, ToolAction, call_risk, plan_allows

__all__ = [
    "DEFAULT_TOOL_RISK",
    "DEFAULT_UNKNOWN_RISK",
    "EDIT_TOOLS",
    "PATH_ARG",
    "PLAN_TOOLS",
    "READ_TOOLS",
    "ToolFacts",
    "canonical_tool_name",
    "plan_offers",
    "tool_action",
    "tool_class",
    "tool_facts",
]

DEFAULT_UNKNOWN_RISK = RiskLevel.MEDIUM

if TYPE_CHECKING:  # derived on first use by ``__getattr__`` below
    DEFAULT_TOOL_RISK: Mapping[str, RiskLevel]
    PLAN_TOOLS: frozenset[str]
    READ_TOOLS: frozenset[str]
    EDIT_TOOLS: frozenset[str]
    PATH_ARG: Mapping[str, str]


@dataclass(frozen=True)
class ToolFacts:
    """The built-in tools' facts, as the policy reads them."""

    classes: Mapping[str, type[Tool]]
    #: Each tool's risk before its call is looked at.
    risk: Mapping[str, RiskLevel]
    #: Tools plan mode offers (per action and per command the policy allows less).
    plan: frozenset[str]
    #: Tools that read files; their path argument is judged as a read.
    read: frozenset[str]
    #: Tools that change files; their path argument is judged as a write.
    edit: frozenset[str]
    #: The argument holding the path, per file tool.
    path_arg: Mapping[str, str]
    #: Lower-cased alias -> canonical name, and every name to itself.
    aliases: Mapping[str, str]


def _builtin_classes() -> list[type[Tool]]:
    from cairn.tools import builtin_tool_classes

    return builtin_tool_classes()


@lru_cache(maxsize=1)
def tool_facts() -> ToolFacts:
    """The facts of every built-in tool class (computed once; ``tool_facts.cache_clear()`` redoes it)."""
    classes = {cls.name: cls for cls in _builtin_classes()}
    path_arg = {name: cls.path_arg for name, cls in classes.items() if cls.path_arg}
    aliases = {alias.lower(): cls.name for cls in classes.values() for alias in cls.aliases}
    aliases.update({name: name for name in classes})
    return ToolFacts(
        classes=MappingProxyType(classes),
        risk=MappingProxyType({name: RiskLevel(cls.risk_level) for name, cls in classes.items()}),
        plan=frozenset(name for name, cls in classes.items() if plan_allows(cls)),
        read=frozenset(name for name in path_arg if classes[name].read_only),
        edit=frozenset(name for name in path_arg if not classes[name].read_only),
        path_arg=MappingProxyType(path_arg),
        aliases=MappingProxyType(aliases),
    )


def tool_class(name: str) -> type[Tool] | None:
    """The built-in tool class named ``name`` (canonical name), or ``None``."""
    return tool_facts().classes.get(name)


def plan_offers(name: str, args: Mapping[str, Any] | None = None) -> bool:
    """Whether plan mode offers the built-in tool ``name`` (or allows a call with ``args``).

    The tools' own predicate (``cairn.tools.base.plan_allows``), the one the graph uses to bind
    tools in plan mode.  ``False`` for tools that are not built in (``read_only_tools`` covers them).
    """
    cls = tool_class(name)
    return cls is not None and plan_allows(cls, args)


def tool_action(name: str, args: Mapping[str, Any]) -> tuple[RiskLevel, ToolAction | None]:
    """The risk of a call to built-in tool ``name`` and the facts of its action, if it declares one."""
    cls = tool_class(name)
    if cls is None:
        return DEFAULT_UNKNOWN_RISK, None
    return RiskLevel(call_risk(cls, args)), cls.actions.get(str(args.get("action")))


def canonical_tool_name(name: str) -> str:
    """The built-in name for ``name`` or one of its aliases (case-insensitive); others unchanged.

    Case-insensitive on purpose: a deny rule for ``bash`` must also catch a call named ``BASH``.
    """
    text = str(name).strip()
    aliases = tool_facts().aliases
    if text in aliases:
        return aliases[text]
    return aliases.get(text.lower(), text)


_LEGACY = {
    "DEFAULT_TOOL_RISK": lambda f: f.risk,
    "PLAN_TOOLS": lambda f: f.plan,
    "READ_TOOLS": lambda f: f.read,
    "EDIT_TOOLS": lambda f: f.edit,
    "PATH_ARG": lambda f: f.path_arg,
}


def __getattr__(name: str) -> Any:
    """The table's names as module attributes, derived on first use (no import-time work)."""
    if name in _LEGACY:
        return _LEGACY[name](tool_facts())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
