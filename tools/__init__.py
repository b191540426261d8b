"""cairn's tools: the contract (``cairn.tools.base``), the registry, and the built-in tools.

``create_default_tools`` is the one place the built-in tools are enumerated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.tools.base import RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.registry import ToolRegistry
from cairn.tools.services import ToolServices, UrlGuard
from cairn.tools.workspace import ResolvedPath, Workspace

if TYPE_CHECKING:
    import os

__all__ = [
    "ResolvedPath",
    "RiskLevel",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "ToolServices",
    "Workspace",
    "builtin_aliases",
    "builtin_tool_classes",
    "create_default_tools",
]


def builtin_tool_classes() -> list[type[Tool]]:
    """Every built-in tool class, in the order the model sees them. The one enumeration."""
    from cairn.tools.agent import AgentListTool, AgentMergeTool, AgentStatusTool, AgentTool
    from cairn.tools.commands import SlashCommandTool
    from cairn.tools.file_ops.edit_file import EditFileTool
    from cairn.tools.file_ops.gitignore import GitignoreTool
    from cairn.tools.file_ops.glob import GlobTool
    from cairn.tools.file_ops.grep import GrepTool
    from cairn.tools.file_ops.ls import ListDirTool
    from cairn.tools.file_ops.read_file import ReadFileTool
    from cairn.tools.file_ops.write_file import WriteFileTool
    from cairn.tools.memory import MemoryTool
    from cairn.tools.save_memory import SaveMemoryTool
    from cairn.tools.shell.bash import BashTool
    from cairn.tools.shell.bash_output import BashOutputTool
    from cairn.tools.shell.kill_bash import KillBashTool
    from cairn.tools.skills import ListSkillsTool, ReadSkillTool
    from cairn.tools.task_list import TaskCreateTool, TaskListTool, TaskUpdateTool
    from cairn.tools.todo import TodoWriteTool
    from cairn.tools.tool_search import ToolSearchTool
    from cairn.tools.web.web_fetch import WebFetchTool
    from cairn.tools.web.web_search import WebSearchTool

    return [
        ReadFileTool,
        ListDirTool,
        GlobTool,
        GrepTool,
        EditFileTool,
        WriteFileTool,
        GitignoreTool,
        BashTool,
        BashOutputTool,
        KillBashTool,
        WebFetchTool,
        WebSearchTool,
        TodoWriteTool,
        TaskCreateTool,
        TaskListTool,
        TaskUpdateTool,
        MemoryTool,
        SaveMemoryTool,
        ToolSearchTool,
        ListSkillsTool,
        ReadSkillTool,
        SlashCommandTool,
        AgentTool,
        AgentStatusTool,
        AgentListTool,
        AgentMergeTool,
    ]


def builtin_aliases() -> dict[str, str]:
    """Lower-cased alias -> canonical name for every built-in tool (``Read`` -> ``read_file``)."""
    table: dict[str, str] = {}
    for cls in builtin_tool_classes():
        for alias in cls.aliases:
            table[alias.lower()] = cls.name
    return table


def create_default_tools(
    *,
    workspace: Workspace | str | os.PathLike[str],
    url_guard: UrlGuard | None = None,
    services: ToolServices | None = None,
) -> list[Tool]:
    """The built-in tools for one session, sharing one ``ToolServices`` (those ``available``:
    ``web_search`` with a provider, the skill tools with skills, ``slash_command`` with commands)."""
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    if services is None:
        services = ToolServices(ws, url_guard=url_guard)
    return [cls(ws, services) for cls in builtin_tool_classes() if cls.available(services)]
