"""Which tool profile a session runs with: the caller's choice, else ``[tools] profile`` in the
project or user settings (``CAIRN_TOOLS`` in the environment), else by the context window."""

from __future__ import annotations

import os

from cairn.graph.profiles import choose_profile
from cairn.policy.settings import project_settings_path, read_settings, user_settings_path
from cairn.tools import Workspace


def configured_profile(workspace: Workspace) -> str | None:
    env = os.environ.get("CAIRN_TOOLS", "").strip()
    if env:
        return env
    for path in (project_settings_path(workspace), user_settings_path()):
        table = read_settings(path).get("tools")
        if isinstance(table, dict) and isinstance(table.get("profile"), str):
            return table["profile"].strip()
    return None


def session_tool_profile(workspace: Workspace, explicit: str | None, *, context_window: int | None) -> str:
    return choose_profile(explicit, configured_profile(workspace), context_window)
