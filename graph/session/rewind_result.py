"""What ``Session.rewind`` / ``redo`` / ``undo_call`` return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RewindResult:
    session_id: str
    #: What was rewound to: "call CALL_ID", "turn N", "redo", "undo CALL_ID".
    target: str
    code: bool = True
    conversation: bool = True
    dry_run: bool = False
    #: Files written back to their earlier bytes and mode (or recreated).
    restored: list[str] = field(default_factory=list)
    #: Files the agent created after the target, removed.
    deleted: list[str] = field(default_factory=list)
    #: Files left as they are, with the reason (conflicts, size bound, write errors).
    not_restored: dict[str, str] = field(default_factory=dict)
    #: The subset of ``not_restored`` changed by someone other than the agent.
    conflicts: list[str] = field(default_factory=list)
    #: Dry run: a unified diff per file (now → after the rewind).
    diffs: dict[str, str] = field(default_factory=dict)
    #: The conversation head after the rewind (the message the next one will follow).
    head: str | None = None
    old_head: str | None = None
    #: Messages of the current branch left behind (the transcript keeps them).
    messages_rewound: int = 0
    rewind_id: str | None = None
    #: Set when the rewind had been interrupted (a crash) and was completed on resume.
    recovered: bool = False

    @property
    def changed(self) -> list[str]:
        return sorted(self.restored + self.deleted)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def summary(self) -> str:
        """A few lines for a person."""
        verb = "would be" if self.dry_run else "were"
        lines = [f"rewind to {self.target}" + (" (dry run)" if self.dry_run else "") + ":"]
        if self.code:
            lines.append(
                f"  {len(self.restored)} file(s) {verb} restored, {len(self.deleted)} {verb} deleted"
            )
            for path in self.restored:
                lines.append(f"    restored  {path}")
            for path in self.deleted:
                lines.append(f"    deleted   {path}")
            for path, why in sorted(self.not_restored.items()):
                lines.append(f"    kept      {path}: {why}")
        if self.conversation:
            lines.append(
                f"  conversation: {self.messages_rewound} message(s) {verb} rewound (kept in the transcript)"
            )
        if self.recovered:
            lines.append("  (this rewind was interrupted and has now been completed)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()
