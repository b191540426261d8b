"""MCP server configuration: the de-facto file formats, merged into one list of ``ServerSpec``.

Sources, highest precedence first (a name defined twice keeps the first):

1. ``Session(mcp_servers={...})`` and ``cairn --mcp-config FILE`` (explicit: start directly)
2. the user's ``[mcp_servers.NAME]`` in ``settings.toml`` and ``mcp.json`` in the config dir
3. the project's ``[mcp_servers.NAME]`` in ``.cairn/settings.toml`` and ``.mcp.json``
   (repository code: start only after a person approved them, see ``trust``)

One entry is ``{"command", "args", "env", "cwd"}`` (stdio) or ``{"url", "headers"}`` (streamable
HTTP; ``"type": "sse"`` for SSE); ``"disabled": true`` skips it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.errors import ConfigError
from cairn.tools.userdirs import user_config_dir
from cairn.tools.workspace import Workspace

__all__ = ["McpConfigError", "ServerSpec", "config_hash", "load_server_specs", "parse_servers", "tool_name"]

_NAME_OK = re.compile(r"[^a-zA-Z0-9_-]")
MAX_NAME = 64
DEFAULT_STARTUP_TIMEOUT = 30.0
_HTTP_TYPES = {
    "http": "streamable_http",
    "streamable_http": "streamable_http",
    "streamable-http": "streamable_http",
}


class McpConfigError(ConfigError):
    """A configuration file or entry that cannot be used (names the file and the server)."""


@dataclass(frozen=True)
class ServerSpec:
    """One configured server: its langchain-mcp-adapters connection dict and where it came from."""

    name: str
    connection: dict[str, Any] = field(hash=False)
    source: str
    #: From the repository (.mcp.json / .cairn/settings.toml): needs a person's approval to start.
    project: bool = False
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT
    raw: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def transport(self) -> str:
        return str(self.connection.get("transport"))


def sanitize(text: str) -> str:
    return _NAME_OK.sub("_", text) or "_"


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, restricted to ``^[a-zA-Z0-9_-]{1,64}$`` (a hash keeps cut names unique)."""
    name = f"mcp__{sanitize(server)}__{sanitize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def _connection(name: str, entry: Mapping[str, Any], source: str, base: Path) -> dict[str, Any]:
    kind = str(entry.get("type") or entry.get("transport") or "").lower()
    if "command" in entry:
        if not isinstance(entry["command"], str) or not entry["command"]:
            raise McpConfigError(f"{source}: server {name!r}: 'command' must be a non-empty string")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise McpConfigError(f"{source}: server {name!r}: 'args' must be a list of strings")
        conn: dict[str, Any] = {"transport": "stdio", "command": entry["command"], "args": list(args)}
        env = entry.get("env")
        if env is not None:
            if not isinstance(env, Mapping):
                raise McpConfigError(f"{source}: server {name!r}: 'env' must be a table of strings")
            conn["env"] = {str(k): str(v) for k, v in env.items()}
        cwd = entry.get("cwd")
        if cwd:
            path = Path(str(cwd)).expanduser()
            conn["cwd"] = str(path if path.is_absolute() else base / path)
        return conn
    if "url" in entry:
        url = entry["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise McpConfigError(f"{source}: server {name!r}: 'url' must be an http(s) URL")
        transport = "sse" if kind == "sse" else _HTTP_TYPES.get(kind or "http")
        if transport is None:
            raise McpConfigError(f"{source}: server {name!r}: unknown type {kind!r} (use http or sse)")
        conn = {"transport": transport, "url": url}
        headers = entry.get("headers")
        if headers:
            if not isinstance(headers, Mapping):
                raise McpConfigError(f"{source}: server {name!r}: 'headers' must be a table of strings")
            conn["headers"] = {str(k): str(v) for k, v in headers.items()}
        return conn
    raise McpConfigError(f"{source}: server {name!r} needs 'command' (stdio) or 'url' (HTTP)")


def parse_servers(
    servers: Mapping[str, Any], source: str, *, project: bool = False, base: Path | None = None
) -> list[ServerSpec]:
    """``{"name": entry}`` → specs; raises ``McpConfigError`` naming the source and the server."""
    if not isinstance(servers, Mapping):
        raise McpConfigError(f"{source}: the MCP servers must be an object of name → settings")
    specs = []
    for name, entry in servers.items():
        if not isinstance(entry, Mapping):
            raise McpConfigError(f"{source}: server {name!r} must be an object")
        if entry.get("disabled"):
            continue
        timeout = entry.get("startup_timeout", entry.get("timeout", DEFAULT_STARTUP_TIMEOUT))
        conn = _connection(str(name), entry, source, base or Path.cwd())
        specs.append(
            ServerSpec(str(name), conn, source, project, float(timeout), raw=json.loads(json.dumps(entry)))
        )
    return specs


def _json_file(path: Path, *, project: bool) -> list[ServerSpec]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise McpConfigError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{path}: invalid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise McpConfigError(f'{path}: expected {{"mcpServers": {{...}}}}')
    servers = data.get("mcpServers", data.get("servers", {}))
    return parse_servers(servers, str(path), project=project, base=path.parent)


def load_server_specs(
    workspace: Workspace,
    *,
    explicit: Mapping[str, Any] | None = None,
    config_files: Iterable[str | Path] = (),
    user_servers: Mapping[str, Any] | None = None,
    project_servers: Mapping[str, Any] | None = None,
    config_dir: Path | None = None,
    user_file: str = "user settings",
    project_file: str = "project settings",
) -> list[ServerSpec]:
    """Every configured server, first definition of a name winning (see the module docstring).

    ``user_servers`` / ``project_servers``: the ``[mcp_servers]`` tables of the user's and the
    project's settings (already read, by the session's ``Settings``); ``config_dir``: the user
    config dir holding ``mcp.json`` (default: :func:`user_config_dir`); ``*_file``: the settings
    files' names, for messages.
    """
    root = workspace.root
    config = config_dir if config_dir is not None else user_config_dir()
    groups: list[list[ServerSpec]] = []
    if explicit:
        groups.append(parse_servers(explicit, "Session(mcp_servers=...)", base=root))
    for file in config_files:
        path = Path(file).expanduser()
        if not path.is_file():
            raise McpConfigError(f"{path}: no such MCP config file")
        groups.append(_json_file(path.resolve(), project=False))
    groups.append(parse_servers(user_servers or {}, f"{user_file} [mcp_servers]", base=config))
    groups.append(_json_file(config / "mcp.json", project=False))
    groups.append(
        parse_servers(project_servers or {}, f"{project_file} [mcp_servers]", project=True, base=root)
    )
    groups.append(_json_file(root / ".mcp.json", project=True))
    seen: dict[str, ServerSpec] = {}
    for group in groups:
        for spec in group:
            seen.setdefault(spec.name, spec)
    return list(seen.values())


def config_hash(specs: Iterable[ServerSpec]) -> str:
    """A digest of the servers' settings: approving a project's servers approves exactly these."""
    data = {s.name: s.raw for s in specs}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
