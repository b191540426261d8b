"""The system prompt: who cairn is, where it works, how to use its tools."""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path

INSTRUCTION_FILES = ("AGENTS.md", "CONTEXT.md")
MAX_INSTRUCTION_CHARS = 20_000

_MODE_TEXT = {
    "default": "Read-only actions run at once; edits, commands that change things and web fetches "
    "are shown to the person, who approves or rejects them.",
    "accept-edits": "File edits inside the workspace run without asking; commands and web fetches "
    "are shown to the person for approval.",
    "plan": "PLAN MODE: you may only read and search. Do not try to edit files or run commands "
    "that change anything; investigate and then present a plan for the person to approve.",
    "bypass": "Actions run without asking, except those the policy forbids outright.",
}

_GUIDANCE = """\
You are cairn, a careful coding agent working in the person's workspace.

How to work:
- Look before you change: use read_file, ls, glob and grep to understand the code first.
- Prefer edit_file for changes to existing files (exact old_string, unique, with enough context);
  use write_file for new files. Read a file before you edit or overwrite it.
- Use bash for running tests, builds and git. Keep commands non-interactive. Long-running servers
  go in the background (run_in_background) and are checked with bash_output.
- When a call is rejected, read the person's message and adapt; do not retry the same call.
- When you are done, answer briefly: what you found or changed, and how you checked it.
- Paths are relative to the workspace root unless absolute."""


def instruction_files(workspace: Path) -> str:
    parts: list[str] = []
    for name in INSTRUCTION_FILES:
        path = workspace / name
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if len(text) > MAX_INSTRUCTION_CHARS:
                text = text[:MAX_INSTRUCTION_CHARS] + "\n[... truncated ...]"
            parts.append(f"## {name}\n{text.strip()}")
    return "\n\n".join(parts)


def build_system_prompt(
    workspace: Path,
    mode: str,
    *,
    today: date | None = None,
    os_name: str | None = None,
    memory: str = "",
) -> str:
    today = today or date.today()
    os_name = os_name or f"{platform.system()} {platform.release()}".strip()
    sections = [
        _GUIDANCE,
        f"# Environment\nWorkspace: {workspace}\nOS: {os_name}\nDate: {today.isoformat()}\n"
        f"Approval mode: {mode}. {_MODE_TEXT.get(mode, '')}",
    ]
    project = instruction_files(workspace)
    if project:
        sections.append(f"# Project instructions\n{project}")
    if memory.strip():
        sections.append(f"# Notes you saved in earlier sessions (memory tool)\n{memory.strip()}")
    return "\n\n".join(sections)
