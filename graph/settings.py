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
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from cairn.errors import ConfigError
from cairn.graph.tool_selection import DEFAULT_DEFER_THRESHOLD
from cairn.policy import Rules
from cairn.policy.sandbox import SandboxSettings, sandbox_from_tables
from cairn.policy.settings import rules_from_tables, search_config
from cairn.settings_files import SettingsTables, read_tables
from cairn.tools.shell.sandbox.spec import DEFAULT_MAX_PROCESSES
from cairn.tools.web.search import SearchConfig
from cairn.tools.workspace import Workspace

__all__ = ["Settings", "load_settings", "settings_table"]

# The precedence rules (highest first); "argument" is a CLI flag or a Session keyword argument.
ARG_ENV_PROJECT_USER = "argument > environment > project file > user file"
ARG_PROJECT_USER = "argument > project file > user file"
ARG_ENV_USER = "argument > environment > user file (a project file cannot set it)"
ARG_ENV = "argument > environment"
MERGED = "project and user files merged (the user's entry wins on a clash)"
USER_ONLY = "user file only (a project file cannot set it)"
TIGHTEN = "user file; a project file may only lower it"
ADDED = "project and user files added together"
USER_ENV = "user file > environment (a project file cannot set it)"
FIRST_NAME_WINS = "argument > user file > project file (a project's servers start once trusted)"


def _int(raw: Any) -> Any:
    """``16_384`` and ``" 8192 "`` from a variable are numbers too."""
    return raw.replace("_", "").strip() if isinstance(raw, str) else raw


PositiveInt = Annotated[int, BeforeValidator(_int), Field(gt=0)]
PositiveFloat = Annotated[float, BeforeValidator(_int), Field(gt=0)]
Flag = Annotated[bool, BeforeValidator(lambda raw: _off(raw))]
CommaList = Annotated[
    tuple[str, ...],
    BeforeValidator(
        lambda raw: tuple(p.strip() for p in raw.split(",") if p.strip()) if isinstance(raw, str) else raw
    ),
]


def _off(raw: Any) -> Any:
    """``0``, ``off`` and ``false`` turn a flag variable off; anything else leaves it on."""
    return raw.strip().lower() not in ("0", "off", "false") if isinstance(raw, str) else raw


def _key(
    default: Any,
    description: str,
    *,
    precedence: str,
    toml: str | None = None,
    env: str | tuple[str, ...] | None = None,
) -> Any:
    envs = (env,) if isinstance(env, str) else tuple(env or ())
    extra = {"toml": toml, "env": list(envs), "precedence": precedence}
    return Field(default, description=description, json_schema_extra=extra)  # type: ignore[arg-type]


class _Table(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class ModelSettings(_Table):
    """The model and the limits of one call (``[model]``)."""

    name: str | None = _key(
        None,
        "Model spec for new sessions: NAME or script:FILE; unset: gpt-4o-mini (--model).",
        env=("CAIRN_MODEL", "OPENAI_MODEL"),
        precedence=ARG_ENV,
    )
    base_url: str | None = _key(
        None, "OpenAI-compatible endpoint (--base-url).", env="OPENAI_BASE_URL", precedence=ARG_ENV
    )
    max_output_tokens: PositiveInt | None = _key(
        None,
        "Output-token cap of one reply; unset: min(4096, window/4) for a self-hosted endpoint.",
        toml="model.max_output_tokens",
        env="CAIRN_MAX_OUTPUT_TOKENS",
        precedence=ARG_ENV_PROJECT_USER,
    )
    call_timeout: PositiveFloat | None = _key(
        None,
        "Seconds one model call may take in all, retries included; unset: 600.",
        toml="model.call_timeout",
        env="CAIRN_MODEL_CALL_TIMEOUT",
        precedence=ARG_ENV_PROJECT_USER,
    )
    summary_model: str | None = _key(
        None,
        "Model that answers web_fetch prompts about long pages; unset: the session's model.",
        toml="web_fetch.summary_model",
        env="CAIRN_SUMMARY_MODEL",
        precedence=ARG_ENV_USER,
    )


class ContextSettings(_Table):
    """The context window."""

    window: PositiveInt | None = _key(
        None,
        "The model's context window in tokens; unset: asked from the endpoint (--context-window).",
        env="CAIRN_CONTEXT_WINDOW",
        precedence=ARG_ENV,
    )


class ToolsSettings(_Table):
    """Which tools are bound (``[tools]``)."""

    profile: str | None = _key(
        None,
        "Tool profile: lean, full or auto (by the context window) (--tools).",
        toml="tools.profile",
        env="CAIRN_TOOLS",
        precedence=ARG_ENV_PROJECT_USER,
    )
    defer_threshold: Annotated[int, Field(ge=0)] = _key(
        DEFAULT_DEFER_THRESHOLD,
        "Over this many tools, only the core set is bound and tool_search activates the rest.",
        toml="tools.defer_threshold",
        precedence=ARG_PROJECT_USER,
    )


class AgentSettings(_Table):
    """Sub-agent budgets (``[agents]``)."""

    max_steps: PositiveInt = _key(
        30, "Steps one sub-agent may take.", toml="agents.max_steps", precedence=ARG_PROJECT_USER
    )
    max_tokens: PositiveInt = _key(
        400_000, "Tokens one sub-agent may use.", toml="agents.max_tokens", precedence=ARG_PROJECT_USER
    )


class SandboxTable(_Table):
    """The shell sandbox (top-level keys)."""

    enabled: bool = _key(
        True,
        'sandbox = "on" or "off" (True: on); "off" runs commands unsandboxed.',
        toml="sandbox",
        precedence=USER_ONLY,
    )
    hidden_paths: tuple[str, ...] = _key(
        (), "More paths hidden from sandboxed commands.", toml="sandbox_hidden_paths", precedence=ADDED
    )
    readable: tuple[str, ...] = _key(
        (), "Paths under the hidden home shown read-only.", toml="sandbox_readable", precedence=USER_ONLY
    )
    max_processes: int = _key(
        DEFAULT_MAX_PROCESSES,
        "Processes a sandboxed command may run (>= 16).",
        toml="sandbox_max_processes",
        precedence=TIGHTEN,
    )
    #: The file that turned the sandbox off (for the startup notice); not a key.
    off_by: str | None = Field(None, exclude=True)

    def as_policy(self) -> SandboxSettings:
        return SandboxSettings(
            self.enabled, self.hidden_paths, self.off_by, self.readable, self.max_processes
        )


class PermissionSettings(_Table):
    """Permission rules (``[permissions]``, ``[tool_risk]``)."""

    allow: tuple[str, ...] = _key(
        (), "Rules whose calls run without asking.", toml="permissions.allow", precedence=MERGED
    )
    ask: tuple[str, ...] = _key(
        (), "Rules whose calls always ask.", toml="permissions.ask", precedence=MERGED
    )
    deny: tuple[str, ...] = _key(
        (), "Rules whose calls are refused.", toml="permissions.deny", precedence=MERGED
    )
    read_only_tools: frozenset[str] = _key(
        frozenset(), "More tools plan mode may use.", toml="permissions.read_only_tools", precedence=MERGED
    )
    tool_risk: dict[str, Any] = _key(
        {}, 'Risk of a tool: tool = "LOW" | "MEDIUM" | "HIGH".', toml="tool_risk.TOOL", precedence=MERGED
    )


class WebSettings(_Table):
    """Web search (``[web_search]``)."""

    search: SearchConfig | None = _key(
        None,
        "Search provider: provider, url, api_key_env, timeout; unset: chosen from the environment.",
        toml="web_search.*",
        env=("CAIRN_SEARCH_PROVIDER", "SEARXNG_URL", "TAVILY_API_KEY", "BRAVE_SEARCH_API_KEY", "EXA_API_KEY"),
        precedence=USER_ENV,
    )


class McpSettings(_Table):
    """MCP servers (``[mcp_servers.NAME]``; also mcp.json and .mcp.json, see docs/extensions.md)."""

    user_servers: dict[str, Any] = _key(
        {}, "MCP servers from the user's file.", toml="mcp_servers.NAME", precedence=FIRST_NAME_WINS
    )
    project_servers: dict[str, Any] = _key(
        {},
        "MCP servers from the project's file (need trust).",
        toml="mcp_servers.NAME",
        precedence=FIRST_NAME_WINS,
    )


class StorageSettings(_Table):
    """What the session keeps."""

    snapshots: Flag = _key(
        True,
        "File snapshots for rewind (0/off/false turns them off).",
        env="CAIRN_SNAPSHOTS",
        precedence=ARG_ENV,
    )


class ShellSettings(_Table):
    """The shell tool's environment."""

    secret_env: CommaList = _key(
        (),
        "More variable names or patterns withheld from commands (comma-separated).",
        env="CAIRN_SECRET_ENV",
        precedence=ARG_ENV,
    )


class Settings(_Table):
    """Every setting of a session in one workspace (see the module docstring)."""

    model: ModelSettings = ModelSettings()
    context: ContextSettings = ContextSettings()
    tools: ToolsSettings = ToolsSettings()
    agents: AgentSettings = AgentSettings()
    sandbox: SandboxTable = SandboxTable()
    permissions: PermissionSettings = PermissionSettings()
    web: WebSettings = WebSettings()
    mcp: McpSettings = McpSettings()
    storage: StorageSettings = StorageSettings()
    shell: ShellSettings = ShellSettings()
    #: Where the user's file lives (``$CAIRN_HOME`` or the platform config dir), and the project's.
    user_file: Path | None = Field(None, exclude=True)
    project_file: Path | None = Field(None, exclude=True)

    @property
    def config_dir(self) -> Path | None:
        """The user config dir (settings.toml, mcp.json, skills/, commands/)."""
        return None if self.user_file is None else self.user_file.parent

    def with_overrides(self, *layers: Mapping[str, Mapping[str, Any] | None]) -> Settings:
        """A copy with the values of ``layers`` (``{"tools": {"profile": "lean"}}``; ``None``
        values ignored, a later layer wins) validated in: CLI flags, ``Session(...)`` arguments."""
        chosen: dict[str, dict[str, Any]] = {}
        for layer in layers:
            for table, values in layer.items():
                chosen.setdefault(table, {}).update(
                    {k: v for k, v in (values or {}).items() if v is not None}
                )
        update: dict[str, Any] = {}
        for table, values in chosen.items():
            if not values:
                continue
            if table not in TABLES:
                raise ConfigError(f"unknown settings table (expected one of {', '.join(TABLES)})", key=table)
            current = getattr(self, table)
            try:
                update[table] = type(current).model_validate({**dict(current), **values})
            except ValidationError as exc:
                raise _config_error(exc, None, table) from None
        return self.model_copy(update=update) if update else self

    def rules(self) -> Rules:
        """The permission rules as the policy takes them."""
        p = self.permissions
        provider = self.web.search.provider if self.web.search else None
        return Rules(p.allow, p.ask, p.deny, p.tool_risk, p.read_only_tools, search_provider=provider)


TABLES: dict[str, type[_Table]] = {
    name: field.annotation
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, _Table)
}  # type: ignore[misc]


def load_settings(
    workspace: str | os.PathLike[str],
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
    model: type[_Table],
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
                raise _config_error(exc, where, key) from None
    return _MISSING


def _config_error(exc: ValidationError, where: str | None, key: str) -> ConfigError:
    """One ``ConfigError`` for pydantic's errors: where, which key, what is wrong, what was given."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    name = key if not field or key.endswith(field) else f"{key}.{field}"
    return ConfigError(f"{first['msg']} (got {first.get('input')!r})", file=where, key=name)


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


def settings_table() -> str:
    """docs/settings.md's table: every key and variable with its default and precedence."""
    rows = ["| Key | Variable | Default | Precedence | Meaning |", "|---|---|---|---|---|"]
    for table, model in TABLES.items():
        for name, field in model.model_fields.items():
            extra = field.json_schema_extra
            if not isinstance(extra, dict):
                continue
            key = f"`{extra['toml']}`" if extra["toml"] else "—"
            env = ", ".join(f"`{e}`" for e in extra["env"]) or "—"  # type: ignore[union-attr]
            default = "unset" if field.default in (None, (), {}, frozenset()) else f"`{field.default}`"
            rows.append(
                f"| {key} | {env} | {default} | {extra['precedence']} | {field.description} ({table}.{name}) |"
            )
    return "\n".join(rows) + "\n"
