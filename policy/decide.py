"""Turning an assessment of one call into a decision, given rules and the session mode.

Order (deny beats ask beats allow, whatever the order of rules):

1. built-in deny (hard-deny set, protected paths, SSRF) -> deny
2. a matching deny rule -> deny
3. a matching ask rule -> ask
4. plan mode and the call is not read-only -> deny
5. fail-closed findings (unparseable, obfuscated, invisible characters) -> ask, in every mode
6. bypass mode -> allow
7. a matching allow rule (or everything pending cleared by rules/mode) -> allow
8. LOW risk -> allow; otherwise ask
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field

from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.rules import Rule, Rules

__all__ = ["Assessment", "decide", "find_rule", "tool_matches"]


@dataclass
class Assessment:
    """What the classifiers found about one call, before rules and mode."""

    risk: RiskLevel
    reason: str
    deny: str | None = None  # built-in refusal
    fail_closed: str | None = None  # never allowed without a person
    read_only: bool = False  # plan mode may run it
    auto_edit: bool = False  # accept-edits mode may run it
    credential: bool = False  # reads credentials: asks in every mode unless an allow rule covers it
    extra: dict[str, object] = field(default_factory=dict)


def tool_matches(rule_tool: str, name: str) -> bool:
    return rule_tool == name or ("*" in rule_tool and fnmatch.fnmatchcase(name, rule_tool))


def find_rule(
    rules: Rules, kind: str, tools: set[str] | frozenset[str], match: Callable[[Rule], bool]
) -> Rule | None:
    for rule in rules.parsed(kind):
        if any(tool_matches(rule.tool, t) for t in tools) and match(rule):
            return rule
    return None


def plan_denial(name: str, why: str) -> Verdict:
    return Verdict(
        Decision.DENY,
        RiskLevel.MEDIUM,
        f"the session is in plan mode, which only runs read-only tools: {name} {why}".strip(),
    )


def decide(
    name: str,
    a: Assessment,
    rules: Rules,
    mode: str,
    matches: Callable[[Rule, str], bool],
    tools: set[str] | frozenset[str] | None = None,
) -> Verdict:
    """The generic decision for non-shell tools; ``matches(rule, kind)`` says whether a rule fits."""
    tools = tools or {name}
    if a.deny:
        return Verdict(Decision.DENY, RiskLevel.HIGH, a.deny)
    rule = find_rule(rules, "deny", tools, lambda r: matches(r, "deny"))
    if rule:
        return Verdict(Decision.DENY, RiskLevel.HIGH, f"{a.reason}; denied by rule", str(rule))
    rule = find_rule(rules, "ask", tools, lambda r: matches(r, "ask"))
    if rule:
        return Verdict(Decision.ASK, a.risk, f"{a.reason}; needs approval by rule", str(rule))
    if mode == "plan" and not (a.read_only or name in rules.read_only_tools):
        return plan_denial(name, f"is not read-only ({a.reason})")
    if a.fail_closed:
        return Verdict(Decision.ASK, max(a.risk, RiskLevel.HIGH, key=_rank), a.fail_closed)
    rule = find_rule(rules, "allow", tools, lambda r: matches(r, "allow"))
    if a.credential and rule is None:
        return Verdict(Decision.ASK, RiskLevel.HIGH, f"{a.reason} (credentials asks in every mode)")
    if mode == "bypass":
        return Verdict(Decision.ALLOW, a.risk, f"bypass mode: {a.reason}")
    if rule:
        return Verdict(Decision.ALLOW, a.risk, f"{a.reason}; allowed by rule", str(rule))
    if a.risk == RiskLevel.LOW:
        return Verdict(Decision.ALLOW, a.risk, a.reason)
    if mode == "accept-edits" and a.auto_edit:
        return Verdict(Decision.ALLOW, a.risk, f"accept-edits mode: {a.reason}")
    return Verdict(Decision.ASK, a.risk, a.reason)


def _rank(level: RiskLevel) -> int:
    return {RiskLevel.LOW: 0, RiskLevel.MEDIUM: 1, RiskLevel.HIGH: 2}[level]
