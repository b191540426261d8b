"""The paths a ``bash`` command reads and writes, judged against the workspace, rules and mode.

Reading outside the workspace needs a read rule (``read_file(...)``), writing outside needs an
edit rule (``edit_file(...)``/``write_file(...)``), and credentials always need one; writes
inside the workspace ride on the command's own approval, except through a redirect.
"""

from __future__ import annotations

from pathlib import Path

from cairn.policy.decide import find_rule
from cairn.policy.levels import RiskLevel, max_risk
from cairn.policy.matching import path_matches
from cairn.policy.paths import PathInfo, sensitive_read_reason, sensitive_write_reason
from cairn.policy.rules import Rule, Rules
from cairn.policy.shell.result import PathEffect, ShellAnalysis
from cairn.policy.table import EDIT_TOOLS, READ_TOOLS
from cairn.tools.workspace import Workspace

__all__ = ["edits_inside", "effect_pending", "effect_tools", "overall_risk", "path_rule", "where"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

#: (risk, reason a person must decide or None, the allow rule that cleared it)
Pending = tuple[RiskLevel, str | None, Rule | None]


def path_rule(
    rules: Rules, kind: str, tools: frozenset[str], info: PathInfo, root: Path, lexical: bool
) -> Rule | None:
    return find_rule(rules, kind, tools, lambda r: path_matches(r.specifier, info, root, lexical_too=lexical))


def effect_tools(effect: PathEffect) -> frozenset[str]:
    return READ_TOOLS if effect.kind == "read" else EDIT_TOOLS


def where(effect: PathEffect) -> str:
    return f"{effect.info.path if effect.info else effect.given} (in: {effect.source})"


def _effect_risk(effect: PathEffect) -> RiskLevel:
    if effect.info is None:
        return MEDIUM
    if effect.kind == "read":
        if sensitive_read_reason(effect.info):
            return HIGH
        return LOW if effect.info.inside else MEDIUM
    return MEDIUM if effect.info.inside else HIGH


def overall_risk(analysis: ShellAnalysis) -> RiskLevel:
    """The highest risk of the command's units, path effects and findings."""
    levels = [u.risk for u in analysis.units] + [_effect_risk(e) for e in analysis.effects]
    levels += [r for r, _ in analysis.asks]
    if analysis.fail_closed:
        levels.append(HIGH)
    return max_risk(*levels)


def edits_inside(analysis: ShellAnalysis, index: int, workspace: Workspace) -> bool:
    """Whether every path unit ``index`` touches is an ordinary file inside the workspace."""
    for effect in analysis.effects:
        if effect.unit_index != index:
            continue
        if effect.info is None or not effect.info.inside:
            return False
        if effect.kind == "write" and sensitive_write_reason(effect.info, workspace):
            return False
    return True


def effect_pending(
    effect: PathEffect,
    analysis: ShellAnalysis,
    cleared: dict[int, Rule | None],
    rules: Rules,
    mode: str,
    workspace: Workspace,
) -> Pending:
    """What one path effect still needs, given the rules that cleared its command."""
    info = effect.info
    if info is None:
        verb = "writes" if effect.kind == "write" else "reads"
        return MEDIUM, f"cannot tell which path {effect.given} {verb} (in: {effect.source})", None
    allow = path_rule(rules, "allow", effect_tools(effect), info, workspace.root, lexical=False)
    if effect.kind == "read":
        return _read_pending(effect, info, allow)
    if not info.inside:
        return (
            (HIGH, None, allow) if allow else (HIGH, f"writes outside the workspace: {where(effect)}", None)
        )
    shown = workspace.display(info.path)
    sensitive = sensitive_write_reason(info, workspace)
    if sensitive:
        why = f"writes {shown}: {sensitive} (in: {effect.source})"
        return (MEDIUM, None, allow) if allow else (MEDIUM, why, None)
    if allow:
        return MEDIUM, None, allow
    unit_ok = effect.unit_index is not None and cleared.get(effect.unit_index) is not None
    if unit_ok and not effect.via_redirect:
        return MEDIUM, None, None
    if mode == "accept-edits":
        unit = analysis.units[effect.unit_index] if effect.unit_index is not None else None
        if effect.via_redirect or (unit is not None and unit.auto_edit):
            return MEDIUM, None, None
    return MEDIUM, f"writes {shown} (in: {effect.source})", None


def _read_pending(effect: PathEffect, info: PathInfo, allow: Rule | None) -> Pending:
    secret = sensitive_read_reason(info)
    if secret:
        return (
            (HIGH, None, allow)
            if allow
            else (HIGH, f"reads {info.path}: {secret} (in: {effect.source})", None)
        )
    if info.inside:
        return LOW, None, None
    return (MEDIUM, None, allow) if allow else (MEDIUM, f"reads outside the workspace: {where(effect)}", None)
