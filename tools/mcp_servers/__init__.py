"""MCP servers for a session: configuration, trust, the background loop, and the tools.

Everything goes through ``langchain-mcp-adapters`` (no MCP protocol is written here).
"""

from __future__ import annotations

from cairn.tools.mcp_servers.config import (
    McpConfigError,
    ServerSpec,
    config_hash,
    load_server_specs,
    parse_servers,
    tool_name,
)
from cairn.tools.mcp_servers.manager import McpManager
from cairn.tools.mcp_servers.tool import McpTool, mcp_tools

__all__ = [
    "McpConfigError",
    "McpManager",
    "McpTool",
    "ServerSpec",
    "config_hash",
    "load_server_specs",
    "mcp_tools",
    "parse_servers",
    "tool_name",
]
