"""``McpTool``: one MCP server tool as a cairn tool named ``mcp__<server>__<tool>``.

Risk MEDIUM unless the server marks the tool ``readOnlyHint`` (then LOW and read-only) or a
``[tool_risk]`` entry says otherwise (the policy applies that).  The call runs on the session's
MCP loop; Ctrl-C cancels it (the call is then ``interrupted``).  When the server is gone the
tool answers with an error that says so, and never hangs.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import ToolException
from pydantic import BaseModel

from cairn.tools.base import RiskLevel, ToolContext, ToolResult
from cairn.tools.langchain_adapter import LangChainTool
from cairn.tools.mcp_servers.config import tool_name
from cairn.tools.mcp_servers.loop import CallCancelled
from cairn.tools.mcp_servers.manager import McpManager, describe

__all__ = ["McpTool", "mcp_tools"]

#: Exceptions (by class name) meaning the connection to the server is gone, not that one call failed.
_DEAD = {
    "ClosedResourceError",
    "BrokenResourceError",
    "EndOfStream",
    "ConnectError",
    "RemoteProtocolError",
    "BrokenPipeError",
    "ConnectionResetError",
}


class McpTool(LangChainTool):
    def __init__(self, lc_tool: Any, server: str, manager: McpManager) -> None:
        meta = getattr(lc_tool, "metadata", None) or {}
        read_only = bool(meta.get("readOnlyHint"))
        super().__init__(
            lc_tool, risk_level=RiskLevel.LOW if read_only else RiskLevel.MEDIUM, read_only=read_only
        )
        self.server = server
        self.manager = manager
        self.name = tool_name(server, lc_tool.name)  # type: ignore[misc]
        self.description = (lc_tool.description or lc_tool.name).strip()  # type: ignore[misc]
        self.search_hint = f"mcp {server} {lc_tool.name}"  # type: ignore[misc]
        self.concurrency_safe = False  # type: ignore[misc]

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        state = self.manager.state(self.server)
        if state is None or state.status != "running":
            why = state.error if state is not None and state.error else "it is not running"
            return ToolResult.fail(
                f"MCP server {self.server!r} is unavailable ({why}); {self.name} cannot run in this "
                "session. Use another way or tell the person.",
                display=f"{self.name}: server unavailable",
            )
        args = (
            params.model_dump(exclude_unset=True, by_alias=True)
            if isinstance(params, BaseModel)
            else dict(params)
        )
        try:
            value = self.manager.loop.run(self.lc_tool.ainvoke(args), cancel=ctx.cancel)
        except CallCancelled:
            return ToolResult.fail("Stopped by the person while the MCP call ran.", cancelled=True)
        except Exception as exc:
            if _is_disconnect(exc):
                self.manager.mark_dead(self.server, f"the connection was lost ({describe(exc)})")
                return ToolResult.fail(
                    f"MCP server {self.server!r} stopped while {self.name} ran ({describe(exc)}). Its tools "
                    "are unavailable for the rest of this session.",
                    display=f"{self.name}: server stopped",
                )
            if isinstance(exc, ToolException):
                return ToolResult.fail(f"{self.name} reported an error: {exc}")
            return ToolResult.fail(f"{self.name} failed: {describe(exc)}")
        return _result(self.name, value)


def _is_disconnect(exc: BaseException) -> bool:
    seen: list[BaseException] = [exc]
    while seen:
        item = seen.pop()
        if type(item).__name__ in _DEAD:
            return True
        if "connection closed" in str(item).lower():
            return True
        if isinstance(item, BaseExceptionGroup):
            seen.extend(item.exceptions)
        if item.__cause__ is not None:
            seen.append(item.__cause__)
    return False


def _result(name: str, value: Any) -> ToolResult:
    """Text for the model from the adapter's content (a string or a list of content blocks)."""
    if isinstance(value, tuple):  # (content, artifact)
        value = value[0]
    if isinstance(value, str):
        text = value
    else:
        parts = []
        for block in value if isinstance(value, list) else [value]:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'content')} block omitted: {block.get('mime_type', '')}]")
            else:
                parts.append(str(block))
        text = "\n".join(parts)
    first = text.strip().splitlines()[0][:120] if text.strip() else "(no output)"
    return ToolResult(output=text, display=f"{name}: {first}")


def mcp_tools(manager: McpManager) -> list[McpTool]:
    """cairn tools for every tool of every running server (names unique; later duplicates dropped)."""
    out: dict[str, McpTool] = {}
    for state in manager.servers.values():
        if state.status != "running":
            continue
        for lc_tool in state.tools:
            tool = McpTool(lc_tool, state.spec.name, manager)
            out.setdefault(tool.name, tool)
    return list(out.values())
