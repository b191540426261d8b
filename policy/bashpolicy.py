"""The decision for one ``bash`` call: shell analysis + rules + mode.

A bash allow rule approves the simple commands it matches (and the commands they wrap), never
the whole string; paths are judged separately: reading outside the workspace needs a read rule
(``read_file(...)``), writing outside needs an edit rule, and read/edit deny rules also apply to
the paths shell commands touch.
"""

from __future__ import annotations

import os
from pathlib import Path

from policy.decide import find_rule, plan_denial
from policy.levels import Decision, RiskLevel, Verdict, max_risk
from policy.matching import bash_matches, path_matches
from policy.paths import (
    PathInfo,
    device_reason,
    protected_reason,
    sensitive_read_reason,
    sensitive_write_reason,
)
from policy.rules import Rule, Rules
from policy.shell.result import PathEffect, ShellAnalysis
from policy.table import EDIT_TOOLS, READ_TOOLS
from tools.workspace import Workspace

__all__ = ["decide_bash"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _path_rule(
    rules: Rules, kind: str, tools: frozenset[str], info: PathInfo, root: Path, lexical: bool
) -> Rule | None:
    return find_rule(rules, kind, tools, lambda r: path_matches(r.specifier, info, root, lexical_too=lexical))


def _unit_rule(rules: Rules, kind: str, forms: list[str]) -> Rule | None:
    return find_rule(rules, kind, {"bash"}, lambda r: bash_matches(r.specifier, forms))


def _effect_tools(effect: PathEffect) -> frozenset[str]:
    return READ_TOOLS if effect.kind == "read" else EDIT_TOOLS


def _where(effect: PathEffect) -> str:
    return f"{effect.info.path if effect.info else effect.given} (in: {effect.source})"


def decide_bash(analysis: ShellAnalysis, rules: Rules, mode: str, workspace: Workspace) -> Verdict:
    root = workspace.root
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

    for kind, decision in (("deny", Decision.DENY), ("ask", Decision.ASK)):
        verdict = _rule_verdict(analysis, rules, kind, decision, root)
        if verdict:
            return verdict

    risk = _overall_risk(analysis)
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
    if mode == "bypass":
        return Verdict(Decision.ALLOW, risk, f"bypass mode: {_summary(analysis)}")

    pending: list[tuple[RiskLevel, str]] = []
    used: list[Rule] = []
    cleared: dict[int, Rule | None] = {}
    for index, unit in enumerate(analysis.units):
        rule = _unit_rule(rules, "allow", unit.forms)
        parent = unit.parent
        while rule is None and parent is not None:
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
        if mode == "accept-edits" and unit.auto_edit and _edits_inside(analysis, index, workspace):
            continue
        pending.append((unit.risk, f"{unit.reason} (in: {unit.text})"))
    for effect in analysis.effects:
        level, why, rule = _effect_pending(effect, analysis, cleared, rules, mode, workspace)
        if rule is not None:
            used.append(rule)
        if why:
            pending.append((level, why))
    pending.extend(analysis.asks)
    if pending:
        top = max(pending, key=lambda p: {LOW: 0, MEDIUM: 1, HIGH: 2}[p[0]])
        return Verdict(Decision.ASK, max_risk(risk, top[0]), top[1])
    if used:
        return Verdict(Decision.ALLOW, risk, f"allowed by rule {used[0]}: {_summary(analysis)}", str(used[0]))
    if not analysis.units and not analysis.effects:
        return Verdict(Decision.ALLOW, LOW, "empty command")
    return Verdict(
        Decision.ALLOW,
        risk,
        f"read-only inside the workspace: {_summary(analysis)}" if risk == LOW else _summary(analysis),
    )


def _rule_verdict(
    analysis: ShellAnalysis, rules: Rules, kind: str, decision: Decision, root: Path
) -> Verdict | None:
    verb = "denied" if decision == Decision.DENY else "needs approval"
    risk = HIGH if decision == Decision.DENY else _overall_risk(analysis)
    for unit in analysis.units:
        rule = _unit_rule(rules, kind, unit.forms + unit.deny_forms)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: {unit.text}", str(rule))
    for effect in analysis.effects:
        if effect.info is None:
            continue
        rule = _path_rule(rules, kind, _effect_tools(effect), effect.info, root, lexical=True)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: {effect.kind}s {_where(effect)}", str(rule))
    for info in analysis.mentions:
        rule = _path_rule(rules, kind, READ_TOOLS | EDIT_TOOLS, info, root, lexical=True)
        if rule:
            return Verdict(decision, risk, f"{verb} by rule: the command names {info.given}", str(rule))
    return None


def _effect_risk(effect: PathEffect) -> RiskLevel:
    if effect.info is None:
        return MEDIUM
    if effect.kind == "read":
        if sensitive_read_reason(effect.info):
            return HIGH
        return LOW if effect.info.inside else MEDIUM
    return MEDIUM if effect.info.inside else HIGH


def _overall_risk(analysis: ShellAnalysis) -> RiskLevel:
    levels = [u.risk for u in analysis.units] + [_effect_risk(e) for e in analysis.effects]
    levels += [r for r, _ in analysis.asks]
    if analysis.fail_closed:
        levels.append(HIGH)
    return max_risk(*levels)


def _not_read_only(analysis: ShellAnalysis) -> str | None:
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


def _edits_inside(analysis: ShellAnalysis, index: int, workspace: Workspace) -> bool:
    for effect in analysis.effects:
        if effect.unit_index != index:
            continue
        if effect.info is None or not effect.info.inside:
            return False
        if effect.kind == "write" and sensitive_write_reason(effect.info, workspace):
            return False
    return True


def _effect_pending(
    effect: PathEffect,
    analysis: ShellAnalysis,
    cleared: dict[int, Rule | None],
    rules: Rules,
    mode: str,
    workspace: Workspace,
) -> tuple[RiskLevel, str | None, Rule | None]:
    root = workspace.root
    info = effect.info
    if info is None:
        return (
            MEDIUM,
            f"cannot tell which path {effect.given} {'writes' if effect.kind == 'write' else 'reads'} (in: {effect.source})",
            None,
        )
    allow = _path_rule(rules, "allow", _effect_tools(effect), info, root, lexical=False)
    if effect.kind == "read":
        secret = sensitive_read_reason(info)
        if secret:
            return (
                (HIGH, None, allow)
                if allow
                else (HIGH, f"reads {info.path}: {secret} (in: {effect.source})", None)
            )
        if info.inside:
            return LOW, None, None
        return (
            (MEDIUM, None, allow)
            if allow
            else (MEDIUM, f"reads outside the workspace: {_where(effect)}", None)
        )
    if not info.inside:
        return (
            (HIGH, None, allow) if allow else (HIGH, f"writes outside the workspace: {_where(effect)}", None)
        )
    sensitive = sensitive_write_reason(info, workspace)
    if sensitive:
        return (
            (MEDIUM, None, allow)
            if allow
            else (MEDIUM, f"writes {workspace.display(info.path)}: {sensitive} (in: {effect.source})", None)
        )
    if allow:
        return MEDIUM, None, allow
    unit_ok = effect.unit_index is not None and cleared.get(effect.unit_index) is not None
    if unit_ok and not effect.via_redirect:
        return MEDIUM, None, None
    if mode == "accept-edits":
        unit = analysis.units[effect.unit_index] if effect.unit_index is not None else None
        if effect.via_redirect or (unit is not None and unit.auto_edit):
            return MEDIUM, None, None
    return MEDIUM, f"writes {workspace.display(info.path)} (in: {effect.source})", None


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
