"""Sub-agent budgets from settings: ``[agents] max_steps`` and ``max_tokens``.

Project settings win over user settings; both fall back to the defaults here.
"""

from __future__ import annotations

from pathlib import Path

from cairn.policy.settings import project_settings_path, read_settings, user_settings_path

DEFAULT_MAX_STEPS = 30
DEFAULT_MAX_TOKENS = 400_000


def agent_budgets(workspace: Path) -> tuple[int, int]:
    steps, tokens = DEFAULT_MAX_STEPS, DEFAULT_MAX_TOKENS
    for path in (user_settings_path(), project_settings_path(workspace)):
        table = read_settings(path).get("agents")
        if isinstance(table, dict):
            steps = _positive(table.get("max_steps"), steps)
            tokens = _positive(table.get("max_tokens"), tokens)
    return steps, tokens


def _positive(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
