"""Loading rules from the project's ``.cairn/settings.toml`` and the user's settings file.

```toml
[permissions]
allow = ["bash(git status)", "bash(npm run test:*)"]
ask = []
deny = ["read_file(~/.ssh/**)"]
read_only_tools = ["my_search_tool"]   # extra tools plan mode may use

[tool_risk]
my_tool = "LOW"
```

Other top-level tables are left alone (other parts of cairn read the same file).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from pathlib import Path
from typing import Any

from cairn.policy.errors import PolicyConfigError
from cairn.policy.rules import Rules, parse_rule
from cairn.tools.web.search.config import SearchConfig, SearchConfigError, resolve_search_config
from cairn.tools.workspace import Workspace

__all__ = ["load_rules", "project_settings_path", "user_settings_path"]

_PERMISSION_KEYS = {"allow", "ask", "deny", "read_only_tools"}


def project_settings_path(workspace: str | os.PathLike[str] | Workspace) -> Path:
    # Not getattr(workspace, "root"): a pathlib.Path has .root too (it is "/").
    root = workspace.root if isinstance(workspace, Workspace) else Workspace(workspace).root
    return root / ".cairn" / "settings.toml"


def user_settings_path() -> Path:
    """``$CAIRN_HOME/settings.toml`` when CAIRN_HOME is set, else the platform config dir's."""
    from cairn.tools.userdirs import user_config_dir

    return user_config_dir() / "settings.toml"


def load_rules(workspace: str | os.PathLike[str] | Workspace, *, user_config: Path | None = None) -> Rules:
    """The project's rules merged with the user's (missing files contribute nothing).

    Raises ``PolicyConfigError`` naming the file and the rule when a file is invalid.
    """
    project = _load_file(project_settings_path(workspace)).without_domains()  # network: user only
    user_path = Path(user_config) if user_config is not None else user_settings_path()
    user_data = read_settings(user_path)
    user = _rules_from(user_path, user_data)
    rules = project.merged(user)
    config = search_config(user_path, user_data)
    return dataclasses.replace(rules, search_provider=config.provider) if config else rules


def search_config(path: Path, data: dict[str, Any]) -> SearchConfig | None:
    """The web search provider from the user's ``[web_search]`` table and the environment (a
    project file cannot choose where queries go)."""
    table = data.get("web_search")
    if table is not None and not isinstance(table, dict):
        raise PolicyConfigError(f"{path}: [web_search] must be a table")
    try:
        return resolve_search_config(table)
    except SearchConfigError as exc:
        raise PolicyConfigError(f"{path}: {exc}") from None


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file's tables (``{}`` when it does not exist)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise PolicyConfigError(f"{path}: cannot read settings: {exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyConfigError(f"{path}: invalid TOML: {exc}") from None


def _load_file(path: Path) -> Rules:
    return _rules_from(path, read_settings(path))


def _rules_from(path: Path, data: dict[str, Any]) -> Rules:
    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise PolicyConfigError(f"{path}: [permissions] must be a table")
    unknown = set(perms) - _PERMISSION_KEYS
    if unknown:
        raise PolicyConfigError(
            f"{path}: unknown key(s) in [permissions]: {', '.join(sorted(unknown))} "
            f"(expected {', '.join(sorted(_PERMISSION_KEYS))})"
        )
    lists: dict[str, tuple[str, ...]] = {}
    for kind in ("allow", "ask", "deny"):
        values = perms.get(kind, [])
        if not isinstance(values, list):
            raise PolicyConfigError(f"{path}: permissions.{kind} must be a list of strings")
        for rule in values:
            try:
                parse_rule(rule)
            except PolicyConfigError as exc:
                raise PolicyConfigError(f"{path}: invalid rule in permissions.{kind}: {exc}") from None
        lists[kind] = tuple(values)
    read_only = perms.get("read_only_tools", [])
    if not isinstance(read_only, list) or not all(isinstance(t, str) for t in read_only):
        raise PolicyConfigError(f"{path}: permissions.read_only_tools must be a list of tool names")
    risk = data.get("tool_risk", {})
    if not isinstance(risk, dict):
        raise PolicyConfigError(f'{path}: [tool_risk] must be a table of tool = "LOW|MEDIUM|HIGH"')
    try:
        return Rules(lists["allow"], lists["ask"], lists["deny"], risk, frozenset(read_only))
    except PolicyConfigError as exc:
        raise PolicyConfigError(f"{path}: {exc}") from None
