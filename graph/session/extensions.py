"""A session's extensions: MCP servers (started in the background, their tools registered when
ready), the deferral settings, and the skills/commands/deferred-tools part of the system prompt.

Project servers (``.mcp.json``, ``[mcp_servers]`` in ``.cairn/settings.toml``) start only once
approved for this workspace and configuration hash (``approve_project``), or with
``trust_project=True`` (``cairn --trust-project-mcp``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from cairn.graph.core.settings import Settings
from cairn.tools import ToolRegistry, Workspace
from cairn.tools.mcp_servers import McpManager, config_hash, load_server_specs, mcp_tools
from cairn.tools.mcp_servers.trust import is_approved, record_approval

log = logging.getLogger("cairn.mcp")

__all__ = ["Extensions"]


class Extensions:
    def __init__(
        self,
        workspace: Workspace,
        *,
        mcp_servers: Mapping[str, Any] | None = None,
        mcp_config: Iterable[str | os.PathLike[str]] = (),
        trust_project_mcp: bool = False,
        settings: Settings | None = None,
        enabled: bool = True,
    ) -> None:
        self.workspace = workspace
        self.notices: list[str] = []
        self.on_notice: Callable[[str], None] | None = None
        settings = settings or Settings()  # Session passes its own; bare Settings(): defaults only
        specs = (
            load_server_specs(
                workspace,
                explicit=mcp_servers,
                config_files=mcp_config,
                user_servers=settings.mcp.user_servers,
                project_servers=settings.mcp.project_servers,
                config_dir=settings.config_dir,
                user_file=str(settings.user_file or "user settings"),
                project_file=str(settings.project_file or "project settings"),
            )
            if enabled
            else []
        )
        self.project_specs = [s for s in specs if s.project]
        self.project_hash = config_hash(self.project_specs) if self.project_specs else ""
        self.manager = McpManager(specs, on_notice=self._notice)
        self.defer_threshold = settings.tools.defer_threshold
        trusted = [s.name for s in specs if not s.project]
        if self.project_specs and (trust_project_mcp or is_approved(workspace.root, self.project_hash)):
            trusted += [s.name for s in self.project_specs]
        for spec in self.project_specs:
            if spec.name not in trusted:
                self.manager.servers[spec.name].status = "awaiting approval"
        self.manager.start(trusted)

    # -- project approval -------------------------------------------------------------------
    def project_pending(self) -> list[dict[str, Any]]:
        """Project servers that wait for a person's approval (name, source, command or URL)."""
        return [
            {"name": s.name, "source": s.source, "command": _describe(s.connection)}
            for s in self.project_specs
            if self.manager.servers[s.name].status == "awaiting approval"
        ]

    def approve_project(self) -> None:
        """Record the approval of this workspace's project servers (this exact config) and start them."""
        if not self.project_specs:
            return
        record_approval(self.workspace.root, self.project_hash)
        self.manager.start([s.name for s in self.project_specs])

    # -- tools --------------------------------------------------------------------------------
    def register_tools(self, registry: ToolRegistry) -> bool:
        """Wait for started servers, add their tools to ``registry``; True when tools were added."""
        if not self.manager.servers:
            return False
        self.manager.wait()
        added = False
        for tool in mcp_tools(self.manager):
            if tool.name not in registry.names:
                registry.register(tool)
                added = True
        return added

    def status(self) -> list[dict[str, Any]]:
        self.manager.wait()
        return self.manager.status()

    def close(self) -> None:
        self.manager.close()

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        log.warning("%s", text)
        if self.on_notice is not None:
            self.on_notice(text)

    # -- prompt --------------------------------------------------------------------------------
    def prompt_section(self) -> str:
        """Skills and custom commands for the end of the system prompt (bounded)."""
        from cairn.tools.commands import discover_commands
        from cairn.tools.skills import discover_skills, skills_prompt

        parts = []
        skills = skills_prompt(discover_skills(self.workspace))
        if skills:
            parts.append(f"# Skills\n{skills}")
        commands = discover_commands(self.workspace)[:40]
        if commands:
            lines = [f"- /{c.name} {c.argument_hint}".rstrip() + f": {c.description}" for c in commands]
            parts.append("# Custom commands (run one with slash_command)\n" + "\n".join(lines))
        return "\n\n".join(parts)


def _describe(conn: Mapping[str, Any]) -> str:
    if conn.get("transport") == "stdio":
        return " ".join([str(conn.get("command", "")), *map(str, conn.get("args", []))])
    return str(conn.get("url", ""))
