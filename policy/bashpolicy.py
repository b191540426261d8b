"""The decision for one ``bash`` call: shell analysis + rules + mode.

A bash allow rule approves the simple commands it matches (and the commands they wrap, when it
names them), never the whole string; the paths a command touches are judged separately
(:mod:`cairn.policy.bashpaths`), and read/edit deny rules also apply to them.

Order: hard-deny and protected writes -> deny rules -> ask rules -> plan mode -> fail-closed
findings -> bypass -> every simple command and path effect approved (table, rule or mode).
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn.policy.bashpaths import (
    edits_inside,
    effect_pending,
    effect_tools,
    overall_risk,
    path_rule,
    where,
)
from cairn.policy.decide import find_rule, plan_denial
from cairn.policy.levels import Decision, RiskLevel, Verdict, max_risk, risk_rank
from cairn.policy.matching import bash_matches
from cairn.policy.network import granted_domains, offered_domains
from cairn.policy.paths import device_reason, hard_link_reason, protected_reason, sensitive_read_reason
from cairn.policy.rules import Rule, Rules
from cairn.policy.shell.result import ShellAnalysis
from cairn.policy.table import EDIT_TOOLS, READ_TOOLS
from cairn.tools.workspace import Workspace

__all__ = ["decide_bash"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def decide_bash(analysis: ShellAnalysis, rules: Rules, mode: str, workspace: Workspace) -> Verdict:
    refused = _refusal(analysis, workspace)
    if refused:
        return refused
    for kind, decision in (("deny", Decision.DENY), ("ask", Decision.ASK)):
        verdict = _rule_verdict(analysis, rules, kind, decision, workspace.root)
        if verdict:
            return verdict

    risk = overall_risk(analysis)
    if mode == "plan":
        why = _not_read_only(analysis)
        if why:
            return plan_denial("bash", why)
    if analysis.fail_closed:
        return Verdict(
            Decision.ASK,
            HIGH,
            f"cannot be checked safely, so a person must decide: {analysis.fail_closed[0]}",
        )
    always = _always_ask(analysis, rules, workspace)
    if always:
        return always
    if mode == "bypass":
        return Verdict(Decision.ALLOW, risk, f"bypass mode: {_summary(analysis)}")

    pending, used = _approvals(analysis, rules, mode, workspace)
    if pending:
        top = max(pending, key=lambda p: risk_rank(p[0]))
        return Verdict(Decision.ASK, max_risk(risk, top[0]), top[1], network_offer=offered_domains(analysis))
    if used:
        return Verdict(
            Decision.ALLOW,
            risk,
            f"allowed by rule {used[0]}: {_summary(analysis)}",
            str(used[0]),
            network=granted_domains(used),
        )
    if not analysis.units and not analysis.effects:
        return Verdict(Decision.ALLOW, LOW, "empty command")
    return Verdict(
        Decision.ALLOW,
        risk,
        f"read-only inside the workspace: {_summary(analysis)}" if risk == LOW else _summary(analysis),
    )


def _refusal(analysis: ShellAnalysis, workspace: Workspace) -> Verdict | None:
    """The built-in refusals no mode or rule lifts: hard-deny, devices, protected paths."""
    if analysis.hard_deny:
        return Verdict(Decision.DENY, HIGH, f"refused (never allowed): {analysis.hard_deny[0]}")
    for effect in analysis.effects:
        if effect.kind != "write" or effect.info is None:
            continue
        device = device_reason(effect.info.lexical) or device_reason(effect.info.path)
        if device:
            return Verdict(Decision.DENY, HIGH, f"refused (never allowed): writes {device}: {effect.source}")
        protected = protected_reason(effect.info, workspace)
        if protected:
            return Verdict(
                Decision.DENY, HIGH, f"refused: writes {effect.given}: {protected} (in: {effect.source})"
            )
    if analysis.protected:
        return Verdict(Decision.DENY, HIGH, f"refused: {analysis.protected[0]}")
    return None


def _always_ask(analysis: ShellAnalysis, rules: Rules, workspace: Workspace) -> Verdict | None:
    """What asks in every mode, bypass included: reading credentials without an allow rule that
    covers them, and writing a file that has other hard links (one may be a protected file)."""
    for effect in analysis.effects:
        info = effect.info
        if info is None:
            continue
        if effect.kind == "read":
            secret = sensitive_read_reason(info)
            if secret and not path_rule(rules, "allow", READ_TOOLS, info, workspace.root, lexical=False):
                return Verdict(
                    Decision.ASK,
                    HIGH,
                    f"reads {info.given}: {secret}; credentials are read only with a person's "
                    f"approval or an allow rule naming them (in: {effect.source})",
                )
        elif effect.kind == "write":
            linked = hard_link_reason(info)
            if linked:
                return Verdict(Decision.ASK, HIGH, f"writes {info.given}: {linked} (in: {effect.source})")
    for info in analysis.mentions:
        # a credential named anywhere in the command (--opt=FILE, a program's text): whatever
        # reads it, a person decides
        secret = sensitive_read_reason(info)
        if secret and not path_rule(rules, "allow", READ_TOOLS, info, workspace.root, lexical=False):
            return Verdict(
                Decision.ASK,
                HIGH,
                f"the command names {info.given}: {secret}; credentials are read only with a "
                "person's approval or an allow rule naming them",
            )
    return None


def _unit_rule(rules: Rules, kind: str, forms: list[str]) -> Rule | None:
    return find_rule(rules, kind, {"bash"}, lambda r: bash_matches(r.specifier, forms))


def _rule_verdict(
    analysis: ShellAnalysis, rules: Rules, kind: str, decision: Decision, root: Path
) -> Verdict | None:
    """The first deny (or ask) rule matching any simple command, path effect or path mention."""
    verb = "denied" if decision == Decision.DENY else "needs approval"
    risk = HIGH if decision == Decision.DENY else overall_risk(analysis)
    for unit in analysis.units:
        rule = _unit_rule(rules, kind, unit.forms + unit.deny_forms)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: {unit.text}", str(rule))
    for effect in analysis.effects:
        if effect.info is None:
            continue
        rule = path_rule(rules, kind, effect_tools(effect), effect.info, root, lexical=True)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: {effect.kind}s {where(effect)}", str(rule))
    for info in analysis.mentions:
        rule = path_rule(rules, kind, READ_TOOLS | EDIT_TOOLS, info, root, lexical=True)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: the command names {info.given}", str(rule))
    return None


def _approvals(
    analysis: ShellAnalysis, rules: Rules, mode: str, workspace: Workspace
) -> tuple[list[tuple[RiskLevel, str]], list[Rule]]:
    """What still needs a person (risk, reason), and the allow rules that cleared the rest."""
    pending: list[tuple[RiskLevel, str]] = []
    used: list[Rule] = []
    cleared: dict[int, Rule | None] = {}
    for index, unit in enumerate(analysis.units):
        rule = _unit_rule(rules, "allow", unit.forms)
        parent = unit.parent
        while rule is None and parent is not None:  # a rule for the wrapper, if it names this command
            inherited = cleared.get(parent)
            if inherited is not None and _names(inherited, unit.argv):
                rule = inherited
            parent = analysis.units[parent].parent
        cleared[index] = rule
        if unit.risk == LOW:
            continue
        if rule is not None and unit.escalated and _is_prefix(rule):
            pending.append(
                (
                    unit.risk,
                    f"{unit.reason}; the prefix rule {rule} does not approve that option (in: {unit.text})",
                )
            )
            continue
        if rule is not None:
            used.append(rule)
            continue
        if mode == "accept-edits" and unit.auto_edit and edits_inside(analysis, index, workspace):
            continue
        pending.append((unit.risk, f"{unit.reason} (in: {unit.text})"))
    for effect in analysis.effects:
        level, why, rule = effect_pending(effect, analysis, cleared, rules, mode, workspace)
        if rule is not None:
            used.append(rule)
        if why:
            pending.append((level, why))
    pending.extend(analysis.asks)
    return pending, used


def _not_read_only(analysis: ShellAnalysis) -> str | None:
    """Why plan mode may not run this command, or ``None`` when it only reads."""
    for unit in analysis.units:
        if not unit.read_only and unit.category not in ("wrapper",):
            return f"`{unit.text}` is not read-only ({unit.reason})"
        if unit.category == "wrapper" and unit.risk != LOW:
            return f"`{unit.text}` is not read-only ({unit.reason})"
    for effect in analysis.effects:
        if effect.kind == "write":
            return f"it writes {effect.given} (in: {effect.source})"
    if analysis.fail_closed:
        return f"it cannot be checked: {analysis.fail_closed[0]}"
    if analysis.asks:
        return f"it {analysis.asks[0][1]}"
    return None


def _summary(analysis: ShellAnalysis) -> str:
    texts = [u.text for u in analysis.units if u.parent is None]
    shown = "; ".join(texts[:4]) + ("; …" if len(texts) > 4 else "")
    return shown or analysis.command[:160]


def _names(rule: Rule, argv: list[str]) -> bool:
    """Whether a rule that approved a wrapper also names the wrapped command.

    ``bash(sudo apt:*)`` approves the ``apt`` that sudo runs; ``bash(find:*)`` does not approve
    the ``rm`` that ``find -exec`` runs: a rule approves what it names.
    """
    if rule.specifier is None:
        return True
    name = os.path.basename(argv[0]) if argv else ""
    return name in rule.specifier.replace(":*", " ").replace("*", " ").split()


def _is_prefix(rule: Rule) -> bool:
    return rule.specifier is None or "*" in rule.specifier
