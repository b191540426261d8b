"""Where cairn keeps per-user files: the config dir (settings, mcp.json, skills/, commands/) and the
state dir (database, memory notes, approvals).  ``$CAIRN_HOME`` moves both."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_config_dir", "user_state_dir"]


def _home() -> Path | None:
    home = os.environ.get("CAIRN_HOME", "").strip()
    return Path(os.path.expanduser(home)) if home else None


def user_config_dir() -> Path:
    """``$CAIRN_HOME`` if set, else the platform's user config directory for cairn."""
    home = _home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_config_dir("cairn"))


def user_state_dir() -> Path:
    """``$CAIRN_HOME`` if set, else the platform's user state directory for cairn."""
    home = _home()
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_state_dir("cairn"))
