"""Where cairn keeps per-user files, computed in this one place for every layer.

The config dir holds settings.toml, mcp.json, skills/ and commands/; the state dir holds the
database, memory notes and approvals.  ``$CAIRN_HOME`` moves both (tests, portable installs);
otherwise they are the platform's user config and state directories for cairn.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["cairn_home", "user_config_dir", "user_state_dir"]

#: The variable that moves both directories.
HOME_VAR = "CAIRN_HOME"


def cairn_home(environ: Mapping[str, str] | None = None) -> Path | None:
    """``$CAIRN_HOME`` (``~`` expanded) from ``environ`` (default: this process's), or ``None``."""
    env = os.environ if environ is None else environ
    home = env.get(HOME_VAR, "").strip()
    return Path(os.path.expanduser(home)) if home else None


def user_config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$CAIRN_HOME`` if set, else the platform's user config directory for cairn."""
    home = cairn_home(environ)
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_config_dir("cairn", appauthor=False))


def user_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$CAIRN_HOME`` if set, else the platform's user state directory for cairn."""
    home = cairn_home(environ)
    if home is not None:
        return home
    import platformdirs

    return Path(platformdirs.user_state_dir("cairn", appauthor=False))
