"""Sub-agent budgets: ``[agents] max_steps`` and ``max_tokens`` from the session's ``Settings``
(project settings win over user settings; defaults in :mod:`cairn.graph.core.settings`)."""

from __future__ import annotations

from cairn.graph.core.settings import Settings


def agent_budgets(settings: Settings) -> tuple[int, int]:
    return settings.agents.max_steps, settings.agents.max_tokens
