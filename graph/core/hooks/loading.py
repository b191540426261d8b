"""A session's hooks from its settings files, Python callables and trust records."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.graph.core.hooks.config import HooksConfig, parse_hooks
from cairn.graph.core.hooks.notify import NotificationsConfig, parse_notifications
from cairn.graph.core.hooks.trust import DEFAULT_PROFILE, approved_profile


def _tables(root: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The user's settings.toml and the project's ``.cairn/settings.toml`` (a file that cannot
    be read contributes nothing here: loading the session's ``Settings`` reports it)."""
    from cairn.errors import ConfigError
    from cairn.settings_files import read_tables

    try:
        tables = read_tables(root)
    except ConfigError:
        return {}, {}
    return dict(tables.user), dict(tables.project)


def load_config(root: Path, python_hooks: Mapping[str, Any] | None = None) -> HooksConfig:
    """``[hooks]`` of the user's and the project's settings, plus ``Session(hooks=...)``."""
    return parse_hooks(*_tables(root)).with_python(python_hooks)


def load_notifications(root: Path) -> NotificationsConfig:
    """``[notifications]`` of the user's and the project's settings."""
    return parse_notifications(*_tables(root))


def project_profile(config: HooksConfig, root: Path, *, trust_flag: bool) -> str | None:
    """The sandbox profile the project's hooks run in, or None while nobody trusted them."""
    if not config.project:
        return None
    recorded = approved_profile(root, config.project_hash)
    if recorded is not None:
        return recorded
    return DEFAULT_PROFILE if trust_flag else None
