"""Which tool profile a session runs with: the caller's choice, else ``[tools] profile`` in the
project or user settings (``CAIRN_TOOLS`` in the environment), else by the context window.

With ``auto`` and no window given (``--context-window``, ``$CAIRN_CONTEXT_WINDOW``), the choice
waits for the window the session resolves on first use, which asks the endpoint's ``/models``
(llama.cpp reports its served ``n_ctx`` there): a llama.cpp server started with ``-c 16384``
gets the lean profile without a flag."""

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


def session_tool_profile(
    workspace: Workspace, explicit: str | None, *, context_window: int | None
) -> str | None:
    """The profile, or None when it is ``auto`` and the window is not known yet."""
    configured = configured_profile(workspace)
    if context_window is None and all(v in (None, "", "auto") for v in (explicit, configured)):
        return None
    return choose_profile(explicit, configured, context_window)
