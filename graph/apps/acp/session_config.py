"""What an editor session starts with: ``cairn acp``'s settings, the editor's MCP servers in
cairn's form, and cairn's approval modes as ACP session modes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp.schema import SessionMode, SessionModeState

#: How each of cairn's approval modes (``Session`` ``MODES``) is shown; the ACP mode id is its name.
MODE_LABELS = {
    "default": ("Default", "Ask before edits, commands and anything risky"),
    "accept-edits": ("Accept edits", "Edit files in the workspace without asking; ask for the rest"),
    "plan": ("Plan", "Read-only: look around and plan, change nothing"),
    "bypass": ("Bypass", "Run everything without asking (deny rules still hold)"),
}


@dataclass
class AcpSettings:
    """What ``cairn acp``'s flags decide for every session it opens."""

    model: str | None = None
    db: str | None = None
    mode: str = "default"
    max_steps: int = 100
    mcp_config: tuple[str, ...] = ()
    trust_project_mcp: bool = False
    #: Run on a background thread once ``initialize`` is answered: imports what the first session
    #: needs while the editor gets ready (the CLI passes ``cairn.graph.apps.cli.tui.warmup.warm_imports``).
    warm_up: Callable[[], None] | None = None


def mcp_servers_config(servers: list[Any] | None) -> dict[str, Any]:
    """The editor's MCP servers in cairn's ``mcpServers`` form (they start like ``--mcp-config``
    ones: given by the person, so trusted; the project's own servers keep their trust rules)."""
    out: dict[str, Any] = {}
    for server in servers or ():
        name = str(getattr(server, "name", "") or "server")
        if getattr(server, "command", None):
            entry: dict[str, Any] = {"command": server.command, "args": list(server.args or [])}
            if server.env:
                entry["env"] = {e.name: e.value for e in server.env}
        elif getattr(server, "url", None):
            entry = {"url": server.url, "type": "sse" if getattr(server, "type", "") == "sse" else "http"}
            if getattr(server, "headers", None):
                entry["headers"] = {h.name: h.value for h in server.headers}
        else:
            continue
        out[name] = entry
    return out


def agent_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cairn-agent")
    except PackageNotFoundError:
        return "0+unknown"


def mode_ids() -> tuple[str, ...]:
    from cairn.graph.session.session import MODES

    return MODES


def mode_state(current: str) -> SessionModeState:
    """``availableModes``: cairn's approval modes, in their order."""
    modes = []
    for mode in mode_ids():
        name, description = MODE_LABELS.get(mode, (mode, None))
        modes.append(SessionMode(id=mode, name=name, description=description))
    return SessionModeState(current_mode_id=current, available_modes=modes)
