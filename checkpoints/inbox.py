"""Prompts stored but not yet taken by a run: what closes the first-write crash window.

``Session.send`` stores the person's message in the transcript, then the graph writes its
input checkpoint (which names the message as the run's head) tens of milliseconds later,
after loading the model and tools.  A kill in between used to leave the message unreachable
and the session ``done``: the prompt was lost.  Now the message, this row and the session's
``running`` status are written in one transaction; the row is cleared once a checkpoint holds
the message, and ``continue_``/``cairn resume`` run a prompt still staged here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from cairn.checkpoints.db import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_inbox (
    thread_id TEXT PRIMARY KEY,
    head TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""


class PromptInbox:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    @staticmethod
    def stage_statement(thread_id: str, head: str) -> tuple[str, Sequence[Any]]:
        """The statement that stages ``head`` (run it in the transaction storing the message)."""
        return (
            "INSERT INTO cairn_inbox (thread_id, head, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT (thread_id) DO UPDATE SET head = excluded.head, created_at = excluded.created_at",
            (thread_id, head, time.time()),
        )

    def get(self, thread_id: str) -> str | None:
        rows = self.db.query("SELECT head FROM cairn_inbox WHERE thread_id = ?", (thread_id,))
        return rows[0][0] if rows else None

    def clear(self, thread_id: str, head: str | None = None) -> None:
        """Forget the staged prompt (only if it is still ``head``, when given)."""
        if head is None:
            self.db.write("DELETE FROM cairn_inbox WHERE thread_id = ?", (thread_id,))
        else:
            self.db.write("DELETE FROM cairn_inbox WHERE thread_id = ? AND head = ?", (thread_id, head))

    def delete_thread(self, thread_id: str) -> None:
        self.clear(thread_id)
