"""Which tool profile a session runs with: ``Settings.tools.profile`` (the caller's choice, else
``CAIRN_TOOLS``, else ``[tools] profile`` in the project or user settings), else by the context
window.

With ``auto`` and no window given (``--context-window``, ``$CAIRN_CONTEXT_WINDOW``), the choice
waits for the window the session resolves on first use, which asks the endpoint's ``/models``
(llama.cpp reports its served ``n_ctx`` there): a llama.cpp server started with ``-c 16384``
gets the lean profile without a flag."""

from __future__ import annotations

from cairn.graph.core.profiles import choose_profile


def session_tool_profile(profile: str | None, *, context_window: int | None) -> str | None:
    """The profile, or None when it is ``auto`` and the window is not known yet."""
    if context_window is None and profile in (None, "", "auto"):
        return None
    return choose_profile(profile, None, context_window)
