"""The files a request names, read before a small model's first reply (lean profile, issue 31).

Asked "What is the value of max_retries in settings.toml?", Qwen2.5-Coder-1.5B answered from
imagination, read ``workspace/settings.toml``, or grepped with a made-up pattern, in most runs of
issue 31's measurement: looking first is the step it fails most.  So when the person's request
names files that are in the workspace (``settings.toml``, ``config/db.ini``, ``calc.py`` in
"python test_calc.py fails, fix calc.py"), cairn's first turn of the run reads them itself: a
turn of ``read_file`` calls, recorded and judged like any other (policy, journal, approval), and
the model's first reply sees what they hold.  As aider adds the files a message mentions.

Only names of regular files that exist (the path as written, relative to the workspace, or a
bare name that one file in the workspace has), outside hidden directories, at most
``MAX_FILES`` of them and each at most ``MAX_BYTES``: a name of a file to be created, a large file
or a directory is left to the model, and so is a file the policy would ask about (cairn's own
reads never ask the person).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from cairn.tools.file_ops.named_files import files_named

if TYPE_CHECKING:
    from cairn.tools.workspace import Workspace

MAX_FILES = 3
MAX_BYTES = 32_000
#: What stands in the transcript as the turn's author (``response_metadata``, never sent).
SOURCE = "cairn: files the request names"
#: A file name with an extension, maybe with directories: ``settings.toml``, ``config/db.ini``.
_NAME = re.compile(r"(?<![\w/.-])(?:\./)?((?:[\w-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/-])")


def fresh_request(history: list[BaseMessage]) -> str | None:
    """The person's request when nothing has answered it yet (the last message is theirs, text)."""
    if not history or not isinstance(history[-1], HumanMessage):
        return None
    content = history[-1].content
    if not isinstance(content, str):
        return None
    before = next((m for m in reversed(history[:-1]) if not isinstance(m, HumanMessage)), None)
    return None if isinstance(before, ToolMessage) else content  # images after tool results: not a request


def named_files(request: str, workspace: Workspace) -> list[str]:
    """Workspace-relative paths of the files ``request`` names (see the module docstring)."""
    found: list[str] = []
    for name in dict.fromkeys(m.group(1) for m in _NAME.finditer(request)):
        path = _existing(name, workspace)
        if path is not None and path not in found:
            found.append(path)
        if len(found) == MAX_FILES:
            break
    return found


def _existing(name: str, workspace: Workspace) -> str | None:
    if any(part.startswith(".") for part in Path(name).parts):
        return None
    root = workspace.root
    candidates = [name] if (root / name).is_file() else []
    if not candidates and "/" not in name:
        candidates = files_named(root, name, limit=2)
    if len(candidates) != 1:
        return None
    path = root / candidates[0]
    try:
        inside = path.resolve().is_relative_to(root.resolve())
        small = path.is_file() and path.stat().st_size <= MAX_BYTES
    except OSError:
        return None
    return candidates[0] if inside and small else None


def reading_turn(paths: list[str], turn_id: str) -> AIMessage:
    """cairn's turn that reads ``paths``: one ``read_file`` call each."""
    calls = [
        {"name": "read_file", "args": {"file_path": path}, "id": f"{turn_id}_{i}", "type": "tool_call"}
        for i, path in enumerate(paths)
    ]
    return AIMessage(
        content="", tool_calls=calls, response_metadata={"finish_reason": "tool_calls", "source": SOURCE}
    )
