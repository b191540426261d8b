"""The ``memory`` tool: notes about a workspace that the agent keeps across sessions.

Notes live in ``<state dir>/memory/<sha256(workspace root)[:16]>.md`` as a Markdown
bullet list (state dir: ``$CAIRN_HOME`` or the platform's user state directory), so a
person can read and edit them.  The graph puts :func:`load_memory` in the system
prompt.  Writes are atomic and serialized with a lock file, so two sessions on one
workspace do not lose each other's notes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from pydantic import Field, model_validator

from cairn.atomic import atomic_write
from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolAction, ToolContext, ToolResult
from cairn.tools.workspace import Workspace

__all__ = ["MAX_NOTES", "MAX_NOTE_CHARS", "MemoryTool", "load_memory", "memory_file_for", "state_dir"]

MAX_NOTES = 50
MAX_NOTE_CHARS = 500

DESCRIPTION = f"""Keep notes about this workspace that persist across sessions (they are shown to you at
the start of every session in this workspace).

- action="view": list the notes with their numbers.
- action="add" with `note`: remember one durable fact: build/test commands, project conventions, the
  user's stated preferences, pitfalls you found. One fact per note, at most {MAX_NOTE_CHARS} characters,
  at most {MAX_NOTES} notes.
- action="remove" with `index` (the number shown by view): forget a note that is wrong or outdated.
Do not store secrets, credentials or task progress (use todo_write for the current plan)."""


def state_dir() -> Path:
    """cairn's state directory: ``$CAIRN_HOME`` if set, else the platform's user state dir."""
    from cairn.tools.userdirs import user_state_dir

    return user_state_dir()


def memory_file_for(workspace: Workspace | str | os.PathLike[str]) -> Path:
    """The notes file of a workspace, keyed by a hash of its real root path."""
    root = workspace.root if isinstance(workspace, Workspace) else Workspace(workspace).root
    digest = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:16]
    return state_dir() / "memory" / f"{digest}.md"


def load_memory(workspace: Workspace | str | os.PathLike[str]) -> str:
    """The workspace's notes as a Markdown bullet list ("" when there are none), bounded even if
    the file was edited by hand."""
    notes = read_notes(memory_file_for(workspace))
    return "\n".join(f"- {note}" for note in notes)


def clean_note(text: str) -> str:
    """One line, no control characters: a note is one bullet in the file and the system prompt."""
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def read_notes(path: Path, *, bounded: bool = True) -> list[str]:
    """Parse the bullet list (``- `` or ``* `` items; indented lines continue the previous item).

    ``bounded`` applies the limits (first 50 notes, each cut to 500 characters) to a file
    a person may have edited by hand.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except (FileNotFoundError, NotADirectoryError):
        return []
    notes: list[str] = []
    for line in text.splitlines():
        if line.startswith(("- ", "* ")):
            notes.append(line[2:])
        elif notes and line[:1] in (" ", "\t") and line.strip():
            notes[-1] += " " + line.strip()
    notes = [n for n in (clean_note(n) for n in notes) if n]
    if bounded:
        notes = [n[:MAX_NOTE_CHARS] for n in notes[:MAX_NOTES]]
    return notes


def write_notes(path: Path, notes: list[str], root: Path) -> None:
    """Write atomically (``cairn.atomic``)."""
    body = f"<!-- cairn memory for {root} : one note per bullet -->\n" + "".join(f"- {n}\n" for n in notes)
    atomic_write(path, body)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Serialize read-modify-write of one notes file across processes (POSIX ``flock``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: atomic replace still keeps the file whole
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class MemoryArgs(ArgsModel):
    action: Literal["view", "add", "remove"] = Field(description="view, add or remove.")
    note: str | None = Field(default=None, description="For add: the fact to remember (one line).")
    index: int | None = Field(default=None, ge=1, description="For remove: the note's number from view.")

    @model_validator(mode="after")
    def _needs(self) -> MemoryArgs:
        if self.action == "add" and not (self.note and self.note.strip()):
            raise ValueError("action 'add' needs a non-empty `note`")
        if self.action == "remove" and self.index is None:
            raise ValueError("action 'remove' needs `index` (the note's number from action 'view')")
        return self


def render_notes(notes: list[str]) -> str:
    if not notes:
        return "Memory for this workspace is empty."
    lines = [f"Memory for this workspace ({len(notes)}/{MAX_NOTES} notes):"]
    lines += [f"{i}. {note}" for i, note in enumerate(notes, 1)]
    return "\n".join(lines)


#: Why adding or removing notes asks: they reach every later session's prompt.
_PERSISTS = "changes notes that persist across sessions (a prompt-injection persistence vector)"


class MemoryTool(Tool):
    name = "memory"
    description = DESCRIPTION
    args_schema = MemoryArgs
    risk_level = RiskLevel.MEDIUM  # per action: view LOW, add/remove MEDIUM
    read_only = False
    plan_mode = True  # for "view" only
    actions = MappingProxyType(
        {
            "view": ToolAction(RiskLevel.LOW, "only reads the notes", plan_mode=True),
            "add": ToolAction(RiskLevel.MEDIUM, _PERSISTS),
            "remove": ToolAction(RiskLevel.MEDIUM, _PERSISTS),
        }
    )
    concurrency_safe = False
    aliases = ("Memory", "remember")
    search_hint = "remember persistent notes preferences across sessions"

    @property
    def path(self) -> Path:
        return memory_file_for(self.workspace)

    def run(self, params: MemoryArgs, ctx: ToolContext) -> ToolResult:
        meta = {"memory_file": str(self.path)}
        if params.action == "view":
            notes = read_notes(self.path)
            return ToolResult(output=render_notes(notes), display=f"{len(notes)} notes", metadata=meta)
        if params.action == "add":
            note = clean_note(params.note or "")
            if len(note) > MAX_NOTE_CHARS:
                return ToolResult.fail(
                    f"The note is {len(note)} characters; the limit is {MAX_NOTE_CHARS}. Shorten it "
                    "or split it into separate facts."
                )
            with locked(self.path):
                notes = read_notes(self.path, bounded=False)
                if any(n.casefold() == note.casefold() for n in notes):
                    return ToolResult(output=f"Already in memory: {note}", display="already remembered")
                if len(notes) >= MAX_NOTES:
                    return ToolResult.fail(
                        f"Memory is full ({MAX_NOTES} notes). Remove an outdated note first.\n"
                        + render_notes(notes)
                    )
                notes.append(note)
                write_notes(self.path, notes, self.workspace.root)
            return ToolResult(
                output=f"Remembered as note {len(notes)}: {note}",
                display=f"remembered: {note[:80]}",
                metadata={**meta, "added": note},
            )
        with locked(self.path):
            notes = read_notes(self.path, bounded=False)
            index = params.index or 0
            if index > len(notes):
                return ToolResult.fail(f"There is no note {index}.\n{render_notes(notes)}")
            removed = notes.pop(index - 1)
            write_notes(self.path, notes, self.workspace.root)
        return ToolResult(
            output=f"Removed note {index}: {removed}\n\n{render_notes(notes)}",
            display=f"forgot: {removed[:80]}",
            metadata={**meta, "removed": removed},
        )

    def preview(self, params: MemoryArgs, ctx: ToolContext) -> ToolResult | None:
        """What an add/remove would change, for the approval prompt."""
        if params.action == "add":
            return ToolResult(output=f"Would remember: {clean_note(params.note or '')}")
        if params.action == "remove":
            notes = read_notes(self.path, bounded=False)
            index = params.index or 0
            if index > len(notes):
                return ToolResult.fail(f"There is no note {index}.")
            return ToolResult(output=f"Would remove note {index}: {notes[index - 1]}")
        return None
