"""How a cairn tool call looks in the editor: kind, title, locations, content, status.

Pure functions over the call as cairn's events carry it (``ToolCallInfo.to_state()`` dicts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: cairn's lifecycle status → ACP's ``ToolCallStatus`` (docs/editors.md has the table).
#: ACP has no "cancelled" or "interrupted": a cancelled call (denied, rejected, cancelled after an
#: interruption) is ``failed`` with the reason; an interrupted call waits for retry/cancel, so it is
#: ``pending`` again.  The exact cairn status rides along in ``_meta.cairn.status``.
STATUS = {
    "pending": "pending",
    "awaiting_approval": "pending",
    "executing": "in_progress",
    "success": "completed",
    "error": "failed",
    "cancelled": "failed",
    "interrupted": "pending",
}

#: Tool name → ACP ``ToolKind`` (anything else, MCP tools included: ``other``).
KINDS = {
    "read_file": "read",
    "read_skill": "read",
    "list_skills": "read",
    "ls": "search",
    "glob": "search",
    "grep": "search",
    "tool_search": "search",
    "web_search": "search",
    "edit_file": "edit",
    "write_file": "edit",
    "bash": "execute",
    "bash_output": "execute",
    "kill_bash": "execute",
    "web_fetch": "fetch",
    "todo_write": "think",
    "task_create": "think",
    "task_update": "think",
    "task_list": "think",
    "agent": "think",
    "agent_status": "think",
    "agent_list": "think",
}

#: Tools whose result carries the session's task list (``metadata.state.tasks``) → a ``plan`` update.
PLAN_TOOLS = frozenset({"todo_write", "task_create", "task_update"})
#: Arguments naming the file or directory a call works on.
PATH_ARGS = ("file_path", "path")


def kind(tool_name: str) -> str:
    return KINDS.get(tool_name, "other")


def status(cairn_status: str) -> str:
    return STATUS.get(cairn_status, "pending")


def title(call: dict[str, Any]) -> str:
    """A short line for the editor's tool card (``display`` once the call has one)."""
    args = call.get("arguments") or {}
    name = str(call.get("tool_name", "tool"))
    if name == "bash" and args.get("command"):
        return f"`{_one_line(str(args['command']))}`"
    for key in (*PATH_ARGS, "pattern", "url", "query", "description"):
        if args.get(key):
            return f"{name} {_one_line(str(args[key]))}"
    return name


def locations(call: dict[str, Any], workspace: str | Path) -> list[dict[str, Any]]:
    """The file a call reads or changes, as an absolute path (the editor can follow it)."""
    args = call.get("arguments") or {}
    for key in PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value:
            path = Path(value) if Path(value).is_absolute() else Path(workspace) / value
            entry: dict[str, Any] = {"path": str(path)}
            offset = args.get("offset")
            if call.get("tool_name") == "read_file" and isinstance(offset, int) and offset > 0:
                entry["line"] = offset
            return [entry]
    return []


def result_text(call: dict[str, Any], limit: int = 4000) -> str:
    """What a person sees as the call's result: the error and reason, or the output's start."""
    if call.get("status") in ("error", "cancelled"):
        parts = [call.get("error_msg"), call.get("reason") if call.get("status") == "cancelled" else None]
        text = "\n".join(str(p) for p in parts if p) or str(call.get("status"))
    else:
        result = call.get("result")
        if isinstance(result, list):  # content blocks (an image read): their text parts
            result = "\n".join(str(b.get("text", "")) for b in result if isinstance(b, dict))
        text = str(result or call.get("display") or "")
    return text if len(text) <= limit else text[:limit] + "\n…"


def planned_contents(call: dict[str, Any], workspace: str | Path) -> tuple[str, str | None, str] | None:
    """(path, old text, new text) an edit or write would make, for a diff before it runs, or None."""
    args = call.get("arguments") or {}
    name = call.get("tool_name")
    if name not in ("edit_file", "write_file") or not isinstance(args.get("file_path"), str):
        return None
    path = Path(args["file_path"])
    path = path if path.is_absolute() else Path(workspace) / path
    try:
        old: str | None = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        old = None
    if name == "write_file":
        return str(path), old, str(args.get("content", ""))
    if old is None:
        return None
    before, after = str(args.get("old_string", "")), str(args.get("new_string", ""))
    if not before:
        return None
    new = old.replace(before, after) if args.get("replace_all") else old.replace(before, after, 1)
    return str(path), old, new


def finished_contents(call: dict[str, Any]) -> tuple[str, str | None, str] | None:
    """(path, old text, new text) of an edit or write that ran, from its metadata, or None."""
    meta = call.get("metadata") or {}
    path = meta.get("path")
    if not isinstance(path, str) or "diff" not in meta:
        return None
    undo = meta.get("undo") or {}
    try:
        new = Path(path).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    before = undo.get("before")
    return path, before if isinstance(before, str) else None, new


def _one_line(text: str, width: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"
