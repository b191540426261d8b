"""The one reader of cairn's settings files: the user's and the project's ``settings.toml``.

It only finds and parses the files; what the keys mean, their defaults and their precedence are
the typed ``Settings`` (:mod:`cairn.graph.core.settings`), and the layers below parse their own tables
with pure functions over the dicts returned here.  It lives in the base layer so that the policy's
own command (``python -m cairn.policy.cli``) reads the same files the same way.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.errors import ConfigError
from cairn.userdirs import user_config_dir

__all__ = [
    "SettingsTables",
    "project_settings_file",
    "read_settings_file",
    "read_tables",
    "user_settings_file",
]

FILE_NAME = "settings.toml"


def user_settings_file(environ: Mapping[str, str] | None = None) -> Path:
    """``$CAIRN_HOME/settings.toml`` when CAIRN_HOME is set, else the platform config dir's."""
    return user_config_dir(environ) / FILE_NAME


def project_settings_file(root: str | os.PathLike[str]) -> Path:
    """``<workspace>/.cairn/settings.toml``."""
    return Path(root) / ".cairn" / FILE_NAME


def read_settings_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A settings file's tables (``{}`` when it does not exist); ``ConfigError`` names the file."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read settings: {exc}", file=str(path)) from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"invalid TOML: {exc}", file=str(path)) from None


@dataclass(frozen=True)
class SettingsTables:
    """Both files, read once: their paths and their top-level tables."""

    user_file: Path
    project_file: Path
    user: dict[str, Any] = field(default_factory=dict)
    project: dict[str, Any] = field(default_factory=dict)


def read_tables(
    root: str | os.PathLike[str],
    *,
    user_file: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SettingsTables:
    """Read the user's file (``user_file``, default :func:`user_settings_file`) and the project's."""
    user_path = Path(user_file) if user_file is not None else user_settings_file(environ)
    project_path = project_settings_file(root)
    return SettingsTables(
        user_path, project_path, read_settings_file(user_path), read_settings_file(project_path)
    )
