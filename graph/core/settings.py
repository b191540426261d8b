"""cairn's settings: one typed object, loaded once from the user file, the project file and the
environment, with one documented precedence rule per key.

    settings = load_settings("path/to/repo", overrides={"tools": {"profile": "lean"}})
    settings.tools.profile, settings.sandbox.enabled, settings.rules() ...

Sources: the user's ``settings.toml`` (``$CAIRN_HOME`` or the platform config dir), the project's
``.cairn/settings.toml``, the environment (``environ``, default this process's) and ``overrides``
(CLI flags, ``Session(...)`` keyword arguments), which win over everything.  Each key's rule is
its ``precedence``; security keys only let a project file tighten what the user set.  A value that
cannot be used raises ``ConfigError`` naming the file (or variable), the key and the problem.
The files are read by :mod:`cairn.settings_files`; the layers below receive values from here.
docs/settings.md is generated from these models (``settings_table``; a test keeps it in step).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from cairn.errors import ConfigError
from cairn.graph.core.settings_tables import (
    ARG_ENV,
    ARG_ENV_PROJECT_USER,
    ARG_ENV_USER,
    ARG_PROJECT_USER,
    TABLES,
    Settings,
    Table,
    config_error,
)
from cairn.policy.sandbox import sandbox_from_tables
from cairn.policy.settings import rules_from_tables, search_config
from cairn.settings_files import SettingsTables, read_tables
from cairn.tools.workspace import Workspace

__all__ = ["Settings", "load_settings", "settings_table"]


def load_settings(
    workspace: str | os.PathLike[str] | Workspace,
    *,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    user_file: str | os.PathLike[str] | None = None,
) -> Settings:
    """Read both files and the environment once; ``overrides`` (``{"tools": {"profile": "lean"}}``,
    ``None`` values ignored) win over everything.  Raises ``ConfigError``."""
    env = os.environ if environ is None else environ
    root = workspace.root if isinstance(workspace, Workspace) else Workspace(workspace).root
    tables = read_tables(root, user_file=user_file, environ=env)
    return build_settings(tables, env).with_overrides(overrides or {})


_MISSING = object()


def build_settings(tables: SettingsTables, environ: Mapping[str, str]) -> Settings:
    """``Settings`` from tables already read (pure); see :func:`load_settings`."""
    data: dict[str, Any] = {}
    for table, model in TABLES.items():
        values: dict[str, Any] = {}
        for name, field in model.model_fields.items():
            extra = field.json_schema_extra
            if isinstance(extra, dict):
                value = _first(model, name, extra, tables, environ)
                if value is not _MISSING:
                    values[name] = value
        data[table] = values
    user, project = str(tables.user_file), str(tables.project_file)
    rules = rules_from_tables(
        tables.user, tables.project, user_file=user, project_file=project, environ=environ
    )
    data["permissions"] = {
        "allow": rules.allow,
        "ask": rules.ask,
        "deny": rules.deny,
        "read_only_tools": rules.read_only_tools,
        "tool_risk": dict(rules.tool_risk),
    }
    data["web"]["search"] = search_config(user, tables.user, environ)
    sandbox = sandbox_from_tables(tables.user, tables.project, user_file=user, project_file=project)
    data["sandbox"] = {
        "enabled": sandbox.enabled,
        "hidden_paths": sandbox.hidden,
        "readable": sandbox.readable,
        "max_processes": sandbox.max_processes,
        "off_by": sandbox.off_by,
        "allowed_domains": sandbox.allowed_domains,
        "network_hosts": dict(sandbox.network_hosts),
    }
    data["mcp"] = {
        "user_servers": _servers(tables.user, user),
        "project_servers": _servers(tables.project, project),
    }
    return Settings.model_validate(
        {**data, "user_file": tables.user_file, "project_file": tables.project_file}
    )


#: Where each generic precedence rule looks, highest first ("argument": ``with_overrides``).
_SOURCES = {
    ARG_ENV_PROJECT_USER: ("environment", "project", "user"),
    ARG_PROJECT_USER: ("project", "user"),
    ARG_ENV_USER: ("environment", "user"),
    ARG_ENV: ("environment",),
}


def _first(
    model: type[Table],
    name: str,
    extra: dict[str, Any],
    tables: SettingsTables,
    environ: Mapping[str, str],
) -> Any:
    """The value of the first source (in the key's precedence) that sets the key, validated."""
    for source in _SOURCES.get(extra["precedence"], ()):
        for where, key, raw in _candidates(source, extra, tables, environ):
            try:
                return getattr(model.model_validate({name: raw}), name)
            except ValidationError as exc:
                raise config_error(exc, where, key) from None
    return _MISSING


def _candidates(
    source: str, extra: dict[str, Any], tables: SettingsTables, environ: Mapping[str, str]
) -> list[tuple[str | None, str, Any]]:
    """``(where, key, raw value)`` the source sets for the key (none, or one)."""
    if source == "environment":
        for var in extra["env"]:
            raw = environ.get(var, "").strip()
            if raw:
                return [("environment", var, raw)]
        return []
    toml = extra["toml"]
    if not toml:
        return []
    data, path = (
        (tables.project, tables.project_file) if source == "project" else (tables.user, tables.user_file)
    )
    table, _, key = toml.rpartition(".")
    if table:
        section = data.get(table)
        if section is None:
            return []
        if not isinstance(section, dict):
            raise ConfigError(f"[{table}] must be a table", file=str(path))
        data = section
    return [(str(path), toml, data[key])] if key in data else []


def _servers(data: Mapping[str, Any], path: str) -> dict[str, Any]:
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError("must be a table of name = server", file=path, key="mcp_servers")
    return servers


#: ``CAIRN_*`` variables read outside this module, each by exactly one module and for a reason:
#: they are needed below the session, or before a workspace and its settings exist.  Everything
#: else is read here once; tests/graph/test_settings_readers.py holds both lists to the code.
READ_ELSEWHERE: dict[str, tuple[str, str]] = {
    "CAIRN_HOME": ("cairn.userdirs", "Moves the config and the state directory (both) for every layer."),
    "CAIRN_DB": (
        "cairn.checkpoints.location",
        "The database: a path, :memory: or a postgresql:// URL; unset: cairn.db in the state dir (--db wins).",
    ),
    "CAIRN_WORKTREES": (
        "cairn.checkpoints.location",
        "Where worktree sub-agents' checkouts go; unset: cairn-worktrees beside the state dir.",
    ),
    "CAIRN_MODEL": (
        "cairn.graph.models.factory",
        "The model when none is given (then $OPENAI_MODEL, then gpt-4o-mini); --model wins.",
    ),
    "CAIRN_MODEL_TIMEOUT": ("cairn.graph.models.factory", "Seconds per model request; unset: 300."),
    "CAIRN_SANDBOX_BACKEND": (
        "cairn.tools.shell.sandbox.detect",
        "auto (bwrap, then Landlock), bwrap, landlock or none; detected once per process.",
    ),
    "CAIRN_BWRAP": ("cairn.tools.shell.sandbox.bwrap", "The bwrap binary to run; unset: bwrap on PATH."),
    "CAIRN_NO_STAT_CACHE": ("cairn.tools.file_ops.stat_cache", "Test switch: stat every file on every call."),
    "CAIRN_NO_RIPGREP": ("cairn.tools.file_ops.ripgrep", "Test switch: 1 forces the Python grep."),
    "CAIRN_WORKSPACE": (
        "cairn.graph.apps.server",
        "The LangGraph server's workspace; unset: its working directory.",
    ),
    "CAIRN_SERVER_MODE": ("cairn.graph.apps.server", "The LangGraph server's approval mode; unset: default."),
}


def settings_table() -> str:
    """docs/settings.md's tables: every key and variable with its default and precedence, then
    the variables read where they are used."""
    rows = ["| Key | Variable | Default | Precedence | Meaning |", "|---|---|---|---|---|"]
    for table, model in TABLES.items():
        for name, field in model.model_fields.items():
            extra = field.json_schema_extra
            if not isinstance(extra, dict):
                continue
            key = f"`{extra['toml']}`" if extra["toml"] else "—"
            env = ", ".join(f"`{e}`" for e in extra["env"]) or "—"  # type: ignore[union-attr]
            default = "unset" if field.default in (None, (), {}, frozenset()) else f"`{field.default}`"
            meaning = str(field.description).replace("|", "\\|")
            rows.append(
                f"| {key} | {env} | {default} | {extra['precedence']} | {meaning} (`{table}.{name}`) |"
            )
    rows += ["", "| Variable | Read by | Meaning |", "|---|---|---|"]
    rows += [f"| `{var}` | `{module}` | {why} |" for var, (module, why) in READ_ELSEWHERE.items()]
    return "\n".join(rows) + "\n"
