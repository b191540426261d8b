"""The policy's settings tables, parsed from already-loaded TOML (pure: no file is read here).

```toml
[permissions]
allow = ["bash(git status)", "bash(npm run test:*)"]
ask = []
deny = ["read_file(~/.ssh/**)"]
read_only_tools = ["my_search_tool"]   # extra tools plan mode may use

[tool_risk]
my_tool = "LOW"
```

The project's and the user's tables are merged (the user's risk levels win).  The web search
provider comes from the user's ``[web_search]`` and the environment only: a project file cannot
choose where queries go.  Other top-level tables are left alone (other parts of cairn read them).
The files themselves are read by :mod:`cairn.settings_files`; a session gets its ``Rules`` from
the typed ``Settings`` (``cairn.graph.core.settings``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.policy.errors import PolicyConfigError
from cairn.policy.rules import Rules, parse_rule
from cairn.settings_files import read_tables
from cairn.tools.web.search.config import SearchConfig, SearchConfigError, resolve_search_config
from cairn.tools.workspace import Workspace

__all__ = ["load_rules", "rules_from_tables", "search_config"]

_PERMISSION_KEYS = {"allow", "ask", "deny", "read_only_tools"}


def load_rules(workspace: str | os.PathLike[str] | Workspace, *, user_config: Path | None = None) -> Rules:
    """The project's rules merged with the user's (missing files contribute nothing), for the
    policy's own command and scripts; ``user_config`` replaces the user's settings file.

    Raises ``ConfigError`` (``PolicyConfigError`` for the keys) naming the file and the rule.
    """
    # Not getattr(workspace, "root"): a pathlib.Path has .root too (it is "/").
    root = workspace.root if isinstance(workspace, Workspace) else Workspace(workspace).root
    tables = read_tables(root, user_file=user_config)
    return rules_from_tables(
        tables.user, tables.project, user_file=str(tables.user_file), project_file=str(tables.project_file)
    )


def rules_from_tables(
    user: Mapping[str, Any],
    project: Mapping[str, Any],
    *,
    user_file: str = "user settings",
    project_file: str = "project settings",
    environ: Mapping[str, str] | None = None,
) -> Rules:
    """``Rules`` from the user's and the project's tables; errors name ``*_file``."""
    # a project's rules grant no network: only the person's own settings open it to a domain
    project_rules = _rules_from(project_file, project).without_domains()
    rules = project_rules.merged(_rules_from(user_file, user))
    config = search_config(user_file, user, environ)
    return dataclasses.replace(rules, search_provider=config.provider) if config else rules


def search_config(
    path: str | os.PathLike[str], data: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> SearchConfig | None:
    """The web search provider from the user's ``[web_search]`` table and ``environ`` (default:
    this process's environment)."""
    table = data.get("web_search")
    if table is not None and not isinstance(table, dict):
        raise PolicyConfigError(f"{path}: [web_search] must be a table")
    try:
        return resolve_search_config(table, environ)
    except SearchConfigError as exc:
        raise PolicyConfigError(f"{path}: {exc}") from None


def _rules_from(path: str, data: Mapping[str, Any]) -> Rules:
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
