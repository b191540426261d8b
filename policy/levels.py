"""Decisions, risk levels and the verdict every policy question answers with.

``RiskLevel`` lives in ``cairn.tools.base`` (tools may not import the policy); it is
re-exported here so callers only need ``policy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cairn.tools.base import RiskLevel

__all__ = ["MODES", "Decision", "RiskLevel", "Verdict", "max_risk", "strictest"]

#: The session modes, in the order a person usually meets them.
MODES = ("default", "accept-edits", "plan", "bypass")

_RISK_ORDER = {RiskLevel.LOW: 0, RiskLevel.MEDIUM: 1, RiskLevel.HIGH: 2}


class Decision(StrEnum):
    """What happens to a call: it runs, a person decides, or it is refused."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


_DECISION_ORDER = {Decision.ALLOW: 0, Decision.ASK: 1, Decision.DENY: 2}


def max_risk(*levels: RiskLevel) -> RiskLevel:
    """The highest of ``levels`` (LOW when none are given)."""
    best = RiskLevel.LOW
    for level in levels:
        if _RISK_ORDER[RiskLevel(level)] > _RISK_ORDER[best]:
            best = RiskLevel(level)
    return best


def strictest(*decisions: Decision) -> Decision:
    """The strictest of ``decisions``: deny beats ask beats allow."""
    best = Decision.ALLOW
    for decision in decisions:
        if _DECISION_ORDER[Decision(decision)] > _DECISION_ORDER[best]:
            best = Decision(decision)
    return best


def risk_rank(level: RiskLevel) -> int:
    return _RISK_ORDER[RiskLevel(level)]


@dataclass(frozen=True)
class Verdict:
    """The policy's answer for one call, with the reason a person or the model is shown.

    ``rule`` is the configured rule that decided (``"bash(git status)"``), or ``None`` when the
    built-in table, a classifier or the mode decided.  ``sandbox`` is the OS sandbox profile a
    shell command runs in (``"read-only"``, ``"workspace-write"``, ``"off"``; for an ``ask``,
    the profile a person's approval gives), ``None`` for other tools and refused calls.
    """

    decision: Decision
    risk: RiskLevel
    reason: str
    rule: str | None = None
    sandbox: str | None = None
    #: Domains a shell command may reach through the sandbox's egress proxy (its allow rules').
    network: tuple[str, ...] = ()
    #: Domains a person may grant at the approval prompt (the package managers' registries).
    network_offer: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "decision": str(self.decision),
            "risk": str(self.risk),
            "reason": self.reason,
            "rule": self.rule,
            "sandbox": self.sandbox,
        }
        if self.network:
            data["network"] = list(self.network)
        if self.network_offer:
            data["network_offer"] = list(self.network_offer)
        return data

    @property
    def allowed(self) -> bool:
        return self.decision == Decision.ALLOW
