"""The tool-call journal: one durable row per tool call of a thread.

``tool_execution`` writes ``executing`` *before* a call starts and the terminal
result the moment it ends; after a crash the node consults the journal first,
so it adopts results that were already produced and marks calls that were
running as ``interrupted`` instead of running them again.  The journal is also
the session's call log (every call with its lifecycle status, risk, reason and
a result summary), which ``cairn show`` and ``Session.tool_calls()`` read.

Arguments, results and details are JSON (``fastjson``: any string round-trips, lone
surrogates included); the descriptive text columns (summary, error, reason) hold
``text_escape.escape_text`` of what they were given, so no string can make a write fail.

Full outputs are kept only while a call is in flight; once the transcript holds
its ToolMessage, ``compact`` drops the output and keeps the summary, so the
database grows with the transcript, not twice as fast.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cairn.checkpoints import fastjson
from cairn.checkpoints.db import Database
from cairn.checkpoints.text_escape import escape_optional, escape_text

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_tool_journal (
    thread_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tool_name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    status TEXT NOT NULL,
    risk TEXT,
    reason TEXT,
    result TEXT,
    summary TEXT,
    error_msg TEXT,
    started_at REAL,
    ended_at REAL,
    attempt INTEGER NOT NULL DEFAULT 0,
    details TEXT,
    PRIMARY KEY (thread_id, call_id)
);
-- The next seq (MAX(seq) per thread) and the session's call log in order: an index lookup.
CREATE INDEX IF NOT EXISTS cairn_tool_journal_seq ON cairn_tool_journal (thread_id, seq);
-- Only calls whose full output is still kept (the turn in flight): what ``compact`` visits.
CREATE INDEX IF NOT EXISTS cairn_tool_journal_kept
    ON cairn_tool_journal (thread_id, call_id) WHERE result IS NOT NULL;
"""

TERMINAL = frozenset({"success", "error", "cancelled"})


@dataclass(frozen=True)
class JournalEntry:
    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    status: str
    risk: str | None
    reason: str | None
    result: dict[str, Any] | None  # serialized ToolResult while in flight
    summary: str | None
    error_msg: str | None
    started_at: float | None
    ended_at: float | None
    attempt: int
    #: Person-facing extras: decision, original arguments, metadata such as a diff.
    details: dict[str, Any] | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


_COLUMNS = "call_id, tool_name, arguments, status, risk, reason, result, summary, error_msg, started_at, ended_at, attempt, details"


def _entry(row: tuple[Any, ...]) -> JournalEntry:
    call_id, tool, args, status, risk, reason, result, summary, err, started, ended, attempt, details = row
    return JournalEntry(
        call_id,
        tool,
        fastjson.loads(args),
        status,
        risk,
        reason,
        fastjson.loads(result) if result else None,
        summary,
        err,
        started,
        ended,
        attempt,
        fastjson.loads(details) if details else None,
    )


class ToolJournal:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def mark_executing(self, thread_id: str, call: dict[str, Any]) -> bool:
        """Durably claim ``call`` for running (before any side effect).

        Returns False when the call is already claimed at this attempt (another run of the
        same session, in this or another process, is executing it): the caller must not run it.
        """
        attempt = int(call.get("attempt") or 0)
        with self.db.transaction() as conn:
            seq = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM cairn_tool_journal WHERE thread_id = ?",
                (thread_id,),
            ).fetchone()[0]
            cursor = conn.execute(
                "INSERT INTO cairn_tool_journal (thread_id, call_id, seq, tool_name, arguments, status, "
                "risk, reason, started_at, attempt) VALUES (?, ?, ?, ?, ?, 'executing', ?, ?, ?, ?) "
                "ON CONFLICT(thread_id, call_id) DO UPDATE SET status='executing', arguments=excluded.arguments, "
                "started_at=excluded.started_at, result=NULL, error_msg=NULL, ended_at=NULL, "
                "attempt=excluded.attempt "
                "WHERE cairn_tool_journal.attempt < excluded.attempt",
                (
                    thread_id,
                    call["call_id"],
                    seq,
                    escape_text(call["tool_name"]),
                    fastjson.dumps(call.get("arguments") or {}),
                    escape_optional(call.get("risk")),
                    escape_optional(call.get("reason")),
                    time.time(),
                    attempt,
                ),
            )
            return cursor.rowcount == 1

    def record(
        self,
        thread_id: str,
        call: dict[str, Any],
        *,
        result: dict[str, Any] | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """Record a call's current status (terminal result, cancellation, interruption)."""
        with self.db.transaction() as conn:
            conn.execute(*self.record_statement(thread_id, call, result=result, details=details))

    def record_statement(
        self,
        thread_id: str,
        call: dict[str, Any],
        *,
        result: dict[str, Any] | None = None,
        details: dict[str, Any] | None = None,
    ) -> tuple[str, tuple[Any, ...]]:
        """``record`` as one statement, for a caller's own transaction (``observation`` commits
        a turn's records with its ToolMessages)."""
        return (
            "INSERT INTO cairn_tool_journal (thread_id, call_id, seq, tool_name, arguments, status, risk, "
            "reason, result, summary, error_msg, ended_at, details) VALUES (?, ?, "
            "(SELECT COALESCE(MAX(seq), 0) + 1 FROM cairn_tool_journal WHERE thread_id = ?), "
            "?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(thread_id, call_id) DO UPDATE SET status=excluded.status, "
            "arguments=excluded.arguments, risk=excluded.risk, reason=excluded.reason, "
            "result=COALESCE(excluded.result, cairn_tool_journal.result), "
            "summary=COALESCE(excluded.summary, cairn_tool_journal.summary), "
            "error_msg=excluded.error_msg, ended_at=excluded.ended_at, "
            "details=COALESCE(excluded.details, cairn_tool_journal.details)",
            (
                thread_id,
                call["call_id"],
                thread_id,
                escape_text(call["tool_name"]),
                fastjson.dumps(call.get("arguments") or {}),
                call["status"],
                escape_optional(call.get("risk")),
                escape_optional(call.get("reason")),
                fastjson.dumps(result) if result is not None else None,
                escape_optional(call.get("summary")),
                escape_optional(call.get("error_msg")),
                time.time(),
                fastjson.dumps(details, default=str) if details is not None else None,
            ),
        )

    def get_many(self, thread_id: str, call_ids: list[str]) -> dict[str, JournalEntry]:
        if not call_ids:
            return {}
        marks = ",".join("?" for _ in call_ids)
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM cairn_tool_journal WHERE thread_id = ? AND call_id IN ({marks})",
            (thread_id, *call_ids),
        )
        return {row[0]: _entry(row) for row in rows}

    def entries(self, thread_id: str) -> list[JournalEntry]:
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM cairn_tool_journal WHERE thread_id = ? ORDER BY seq", (thread_id,)
        )
        return [_entry(r) for r in rows]

    def compact(self, thread_id: str, *, keep: list[str]) -> None:
        """Drop full outputs of finished calls other than ``keep`` (the turn in flight).

        Called at the start of a tool cycle, when every earlier call's ToolMessage is
        already in a committed transcript.
        """
        marks = ",".join("?" for _ in keep) or "''"
        self.db.write(
            "UPDATE cairn_tool_journal SET result = NULL WHERE thread_id = ? AND result IS NOT NULL "
            f"AND status IN ('success', 'error', 'cancelled', 'interrupted') AND call_id NOT IN ({marks})",
            (thread_id, *keep),
        )

    def delete_thread(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_tool_journal WHERE thread_id = ?", (thread_id,))
