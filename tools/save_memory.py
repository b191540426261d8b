"""``save_memory``: remember a fact for the project in the workspace's ``CONTEXT.md``.

The fact becomes one bullet under a ``## Agent Memories`` heading (created, with the file if need
be); the rest of the file is kept byte for byte.  ``CONTEXT.md`` is read into every future
session's system prompt and is usually committed, so the team shares these facts — and the tool
asks in the default mode (the policy: MEDIUM).  The ``memory`` tool is the private counterpart:
notes about this workspace kept outside the repository, for this user only.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from pydantic import Field

from cairn.atomic import atomic_write
from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.memory import clean_note, locked

__all__ = ["HEADING", "SaveMemoryTool", "add_memory"]

HEADING = "## Agent Memories"
FILE_NAME = "CONTEXT.md"
MAX_FACT_CHARS = 500
#: The heading that ends the section: the next one of level 1 or 2.
_SECTION = re.compile(r"#{1,2} ")


class SaveMemoryArgs(ArgsModel):
    fact: str = Field(description="One durable fact about the project, one line (a command, a convention).")


def add_memory(text: str, fact: str) -> str:
    """``text`` with ``- fact`` appended to the ``## Agent Memories`` section (added at the end if absent)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == HEADING), None)
    bullet = f"- {fact}{newline}"
    if start is None:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        gap = newline if text.strip() else ""
        return f"{text}{sep}{gap}{HEADING}{newline}{newline}{bullet}"
    end = next((i for i in range(start + 1, len(lines)) if _SECTION.match(lines[i])), len(lines))
    insert = end
    while insert > start + 1 and not lines[insert - 1].strip():
        insert -= 1  # after the last bullet, before the blank lines that precede the next heading
    if insert > 0 and not lines[insert - 1].endswith(("\n", "\r")):
        lines[insert - 1] += newline
    lines.insert(insert, bullet)
    return "".join(lines)


class SaveMemoryTool(Tool):
    name = "save_memory"
    plan_mode = False
    description = (
        f"Save one durable fact about this project under '{HEADING}' in the workspace's {FILE_NAME} "
        "(shared with the team, read at the start of every session): build and test commands, "
        "conventions, decisions. One fact per call, no secrets. For private notes use `memory`."
    )
    args_schema = SaveMemoryArgs
    risk_level = RiskLevel.MEDIUM
    aliases = ("SaveMemory", "save_to_memory")
    search_hint = "remember project fact context agents memories"

    @property
    def path(self) -> Path:
        return self.workspace.root / FILE_NAME

    def _fact(self, params: SaveMemoryArgs) -> str | ToolResult:
        fact = clean_note(params.fact)
        if not fact:
            return ToolResult.fail("The fact is empty.")
        if len(fact) > MAX_FACT_CHARS:
            return ToolResult.fail(f"The fact is {len(fact)} characters; keep it under {MAX_FACT_CHARS}.")
        return fact

    def _current(self) -> str:
        try:
            return self.path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            return ""

    def run(self, params: SaveMemoryArgs, ctx: ToolContext) -> ToolResult:
        fact = self._fact(params)
        if isinstance(fact, ToolResult):
            return fact
        with locked(self.path):
            old = self._current()
            if f"- {fact}".casefold() in old.casefold():
                return ToolResult(output=f"Already in {FILE_NAME}: {fact}", display="already saved")
            new = add_memory(old, fact)
            mode = self.path.stat().st_mode & 0o7777 if self.path.exists() else None
            atomic_write(self.path, new, mode=mode)
        return ToolResult(
            output=f"Saved to {FILE_NAME} under '{HEADING}': {fact}",
            display=f"saved memory: {fact[:80]}",
            metadata={"diff": _diff(old, new), "path": str(self.path)},
        )

    def preview(self, params: SaveMemoryArgs, ctx: ToolContext) -> ToolResult | None:
        fact = self._fact(params)
        if isinstance(fact, ToolResult):
            return fact
        old = self._current()
        return ToolResult(output=_diff(old, add_memory(old, fact)), metadata={"path": str(self.path)})


def _diff(old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{FILE_NAME}", f"b/{FILE_NAME}")
    )
