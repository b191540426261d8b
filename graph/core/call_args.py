"""What a tool call is about, in a few words: the one argument summarizer of every view.

The CLI (``cairn.graph.apps.cli.tui.fmt.describe_args``, escaped for terminals), the notebook and HTML
views (``parts.summary_line``) and the approval prompts all summarize arguments here, from one
table of which argument tells what a call is about.
"""

from __future__ import annotations

import json
from typing import Any

#: The argument that says what a call is about, per tool (first match wins).
KEY_ARGS: dict[str, tuple[str, ...]] = {
    "bash": ("command",),
    "bash_output": ("task_id", "bash_id"),
    "kill_bash": ("task_id", "bash_id"),
    "read_file": ("file_path", "path"),
    "write_file": ("file_path", "path"),
    "edit_file": ("file_path", "path"),
    "ls": ("path",),
    "list_dir": ("path",),
    "glob": ("pattern",),
    "grep": ("pattern",),
    "web_fetch": ("url",),
    "web_search": ("query",),
    "memory": ("action", "command"),
}
#: Other tools (MCP, custom): the first of these they have.
GENERIC_KEYS = ("command", "file_path", "path", "pattern", "url", "query", "shell_id")


def call_about(tool_name: str, args: dict[str, Any]) -> str:
    """The command, path, pattern or URL of a call (else its arguments as JSON), not shortened."""
    for key in KEY_ARGS.get(tool_name, GENERIC_KEYS):
        value = args.get(key)
        if value not in (None, ""):
            extra = ""
            if tool_name == "grep" and args.get("path"):
                extra = f" in {args['path']}"
            if tool_name == "bash" and args.get("run_in_background"):
                extra = " (background)"
            return f"{value}{extra}"
    if tool_name == "todo_write" and isinstance(args.get("todos"), list):
        return f"{len(args['todos'])} tasks"
    if not args:
        return ""
    return json.dumps(args, ensure_ascii=False, default=str)


def args_summary(tool_name: str, args: dict[str, Any], limit: int = 100) -> str:
    """``call_about`` on one line (white space folded), cut to ``limit`` characters."""
    text = " ".join(call_about(tool_name, args).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
