"""The typed settings: one pydantic model per table, a description and a precedence per key.

Loaded by :mod:`cairn.graph.core.settings` (``load_settings``), which is what the rest of cairn
imports; the precedence strings here are what docs/settings.md shows for each key.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from cairn.errors import ConfigError
from cairn.graph.core.tool_selection import DEFAULT_DEFER_THRESHOLD
from cairn.policy import Rules
from cairn.policy.sandbox import SandboxSettings
from cairn.tools.shell.sandbox.spec import DEFAULT_MAX_PROCESSES
from cairn.tools.web.search import SearchConfig

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


def _off(raw: Any) -> Any:
    """``0``, ``off`` and ``false`` turn a flag variable off; anything else leaves it on."""
    return raw.strip().lower() not in ("0", "off", "false") if isinstance(raw, str) else raw


def _commas(raw: Any) -> Any:
    """``"A, B_*"`` from a variable is ``("A", "B_*")``."""
    return tuple(p.strip() for p in raw.split(",") if p.strip()) if isinstance(raw, str) else raw


PositiveInt = Annotated[int, BeforeValidator(_int), Field(gt=0)]
PositiveFloat = Annotated[float, BeforeValidator(_int), Field(gt=0)]
Share = Annotated[float, BeforeValidator(_int), Field(gt=0, lt=1)]
Temperature = Annotated[float, BeforeValidator(_int), Field(ge=0, le=2)]
Flag = Annotated[bool, BeforeValidator(_off)]
CommaList = Annotated[tuple[str, ...], BeforeValidator(_commas)]


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


class Table(BaseModel):
    """One settings table: immutable, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


class ModelSettings(Table):
    """The model and the limits of one call (``[model]``)."""

    #: ``--base-url``: the endpoint of a configured summary model (an argument only; unset, the
    #: model factory uses ``$OPENAI_BASE_URL``). The session's own model records its endpoint.
    base_url: str | None = None
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
    temperature: Temperature | None = _key(
        None,
        "Sampling temperature of every reply; unset: 0.2 for a self-hosted endpoint with the lean "
        "profile, else the server's own default.",
        toml="model.temperature",
        env="CAIRN_TEMPERATURE",
        precedence=ARG_ENV_PROJECT_USER,
    )
    summary_model: str | None = _key(
        None,
        "Model that answers web_fetch prompts about long pages; unset: the session's model.",
        toml="web_fetch.summary_model",
        env="CAIRN_SUMMARY_MODEL",
        precedence=ARG_ENV_USER,
    )


class ContextSettings(Table):
    """The context window and when to compact (unset numbers: ``ContextBudget``'s defaults)."""

    window: PositiveInt | None = _key(
        None,
        "The model's context window in tokens; unset: asked from the endpoint (--context-window).",
        env="CAIRN_CONTEXT_WINDOW",
        precedence=ARG_ENV,
    )
    threshold: Share | None = _key(
        None,
        "Compact when the prompt reaches this share of the window; unset: 0.8.",
        env="CAIRN_COMPACT_THRESHOLD",
        precedence=ARG_ENV,
    )
    elide_at: Share | None = _key(
        None,
        "Elide old tool outputs from this share of the window; unset: 0.6.",
        env="CAIRN_ELIDE_THRESHOLD",
        precedence=ARG_ENV,
    )
    keep_ratio: Annotated[Share, Field(le=0.6)] | None = _key(
        None,
        "Share of the window kept verbatim (recent turns) when compacting; unset: 0.3.",
        env="CAIRN_COMPACT_KEEP",
        precedence=ARG_ENV,
    )
    spill_bytes: PositiveInt | None = _key(
        None,
        "Tool outputs over this many bytes are stored whole; the model sees head and tail; unset: 20000.",
        env="CAIRN_TOOL_OUTPUT_LIMIT",
        precedence=ARG_ENV,
    )


class ToolsSettings(Table):
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


class AgentSettings(Table):
    """Sub-agent budgets (``[agents]``)."""

    max_steps: PositiveInt = _key(
        30, "Steps one sub-agent may take.", toml="agents.max_steps", precedence=ARG_PROJECT_USER
    )
    max_tokens: PositiveInt = _key(
        400_000, "Tokens one sub-agent may use.", toml="agents.max_tokens", precedence=ARG_PROJECT_USER
    )


class SandboxTable(Table):
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
    allowed_domains: tuple[str, ...] = _key(
        (),
        "Domains every command you or a rule allowed may reach through the egress proxy.",
        toml="sandbox.allowed_domains",
        precedence=USER_ONLY,
    )
    network_hosts: dict[str, tuple[str, ...]] = _key(
        {},
        "Names pinned to addresses for the egress proxy (no DNS, private addresses allowed).",
        toml="sandbox.network_hosts",
        precedence=USER_ONLY,
    )
    #: The file that turned the sandbox off (for the startup notice); not a key.
    off_by: str | None = Field(None, exclude=True)

    def as_policy(self) -> SandboxSettings:
        return SandboxSettings(
            self.enabled,
            self.hidden_paths,
            self.off_by,
            self.readable,
            self.max_processes,
            self.allowed_domains,
            self.network_hosts,
        )


class PermissionSettings(Table):
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


class WebSettings(Table):
    """Web search (``[web_search]``)."""

    search: SearchConfig | None = _key(
        None,
        "Search provider: provider, url, api_key_env, timeout; unset: chosen from the environment.",
        toml="web_search.*",
        env=("CAIRN_SEARCH_PROVIDER", "SEARXNG_URL", "TAVILY_API_KEY", "BRAVE_SEARCH_API_KEY", "EXA_API_KEY"),
        precedence=USER_ENV,
    )


class McpSettings(Table):
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


class StorageSettings(Table):
    """What the session keeps."""

    snapshots: Flag = _key(
        True,
        "File snapshots for rewind (0/off/false turns them off).",
        env="CAIRN_SNAPSHOTS",
        precedence=ARG_ENV,
    )
    snapshot_max_file_bytes: PositiveInt | None = _key(
        None,
        "Files over this size are not snapshotted; unset: 10 MiB.",
        env="CAIRN_SNAPSHOT_MAX_FILE_BYTES",
        precedence=ARG_ENV,
    )


class ShellSettings(Table):
    """The shell tool's environment."""

    #: Variables every command gets on top of cairn's environment: an argument only (``cairn
    #: demo`` puts this interpreter first on PATH), never read from a file or a variable.
    env: dict[str, str] = Field(default_factory=dict)

    secret_env: CommaList = _key(
        (),
        "More variable names or patterns withheld from commands (comma-separated).",
        env="CAIRN_SECRET_ENV",
        precedence=ARG_ENV,
    )


class Settings(Table):
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
                raise config_error(exc, None, table) from None
        return self.model_copy(update=update) if update else self

    def rules(self) -> Rules:
        """The permission rules as the policy takes them."""
        p = self.permissions
        provider = self.web.search.provider if self.web.search else None
        return Rules(p.allow, p.ask, p.deny, p.tool_risk, p.read_only_tools, search_provider=provider)


TABLES: dict[str, type[Table]] = {
    name: field.annotation
    for name, field in Settings.model_fields.items()
    if isinstance(field.annotation, type) and issubclass(field.annotation, Table)
}  # type: ignore[misc]


def config_error(exc: ValidationError, where: str | None, key: str) -> ConfigError:
    """One ``ConfigError`` for pydantic's errors: where, which key, what is wrong, what was given."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    name = key if where is not None or not field else f"{key}.{field}"
    return ConfigError(f"{first['msg']} (got {first.get('input')!r})", file=where, key=name)
