"""The policy table: each built-in tool's risk before per-call refinement, and tool-name aliases.

Refinement happens in :mod:`cairn.policy.evaluate` (bash through the shell classifier, file tools
through the path checks, ``web_fetch`` through the URL checks, ``memory``/``gitignore`` by
action).  Anything not in the table (MCP and custom tools) is ``DEFAULT_UNKNOWN_RISK``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from cairn.policy.levels import RiskLevel

__all__ = [
    "DEFAULT_TOOL_RISK",
    "DEFAULT_UNKNOWN_RISK",
    "EDIT_TOOLS",
    "PATH_ARG",
    "PLAN_TOOLS",
    "READ_TOOLS",
    "canonical_tool_name",
]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

DEFAULT_TOOL_RISK: Mapping[str, RiskLevel] = MappingProxyType(
    {
        "read_file": LOW,
        "ls": LOW,
        "glob": LOW,
        "grep": LOW,
        "bash_output": LOW,
        "kill_bash": LOW,  # stops only background tasks the agent itself started
        "todo_write": LOW,  # the agent's own plan
        "task_create": LOW,  # the same plan, one task at a time
        "task_list": LOW,
        "task_update": LOW,
        "gitignore": LOW,  # "check" is LOW; "add" is refined to MEDIUM
        "memory": MEDIUM,  # "view" is refined to LOW; notes persist across sessions
        "edit_file": MEDIUM,
        "write_file": MEDIUM,
        "bash": HIGH,  # refined by the shell classifier
        "web_fetch": MEDIUM,  # refined by the URL checks
        "web_search": LOW,  # the query goes to the configured provider; rules can ask/deny by provider
        "save_memory": MEDIUM,  # writes CONTEXT.md, which feeds every future prompt
        "tool_search": LOW,  # loads deferred tools' schemas; runs nothing
        "list_skills": LOW,
        "read_skill": LOW,  # reads a skill's files (the user's or the project's own)
        "slash_command": LOW,  # returns a command's text; what it asks for is judged call by call
        "agent": MEDIUM,  # a sub-agent
        "agent_status": LOW,
        "agent_list": LOW,
        "agent_merge": MEDIUM,  # merges a sub-agent's branch into the checkout
    }
)

DEFAULT_UNKNOWN_RISK = MEDIUM

#: Tools that read files; their path argument is judged as a read.
READ_TOOLS = frozenset({"read_file", "ls", "glob", "grep"})
#: Tools that change files; their path argument is judged as a write.
EDIT_TOOLS = frozenset({"edit_file", "write_file"})
#: The argument holding the path, per file tool.
PATH_ARG: Mapping[str, str] = MappingProxyType(
    {
        "read_file": "file_path",
        "write_file": "file_path",
        "edit_file": "file_path",
        "ls": "path",
        "glob": "path",
        "grep": "path",
    }
)

#: Tools plan mode offers.  Some are refined per call: bash only when the command is read-only,
#: memory only for "view", gitignore only for "check".
PLAN_TOOLS = frozenset(
    {
        "read_file",
        "ls",
        "glob",
        "grep",
        "bash_output",
        "kill_bash",
        "todo_write",
        "agent_status",
        "agent_list",
        "task_create",
        "task_list",
        "task_update",
        "web_fetch",
        "web_search",
        "bash",
        "memory",
        "gitignore",
        "tool_search",
        "list_skills",
        "read_skill",
        "slash_command",
    }
)

#: Used until (or if) ``cairn.tools.builtin_aliases()`` cannot be imported: lower-cased alias -> name.
_FALLBACK_ALIASES = {
    "bash": "bash",
    "shell": "bash",
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "webfetch": "web_fetch",
    "fetch": "web_fetch",
    "websearch": "web_search",
    "search_web": "web_search",
    "glob": "glob",
    "grep": "grep",
    "listdir": "ls",
    "list": "ls",
    "bashoutput": "bash_output",
    "killbash": "kill_bash",
    "killshell": "kill_bash",
    "todowrite": "todo_write",
    "memory": "memory",
    "gitignore": "gitignore",
    "task": "agent",
    "agent": "agent",
}


@lru_cache(maxsize=1)
def _alias_table() -> dict[str, str]:
    table = dict(_FALLBACK_ALIASES)
    table.update({name: name for name in DEFAULT_TOOL_RISK})
    try:
        from cairn.tools import builtin_aliases

        table.update(builtin_aliases())
    except Exception:  # tool modules still being written, or broken: the fallback table stands
        pass
    return table


def canonical_tool_name(name: str) -> str:
    """The built-in name for ``name`` or one of its aliases (case-insensitive); others unchanged.

    Case-insensitive on purpose: a deny rule for ``bash`` must also catch a call named ``BASH``.
    """
    text = str(name).strip()
    if text in DEFAULT_TOOL_RISK:
        return text
    return _alias_table().get(text.lower(), text)
