"""Finding what a rewind goes back to: a call or a person's turn, in code and conversation.

The conversation returns to just before the model message that made the call (or just
before the person's N-th message of the current branch); the code returns to the
workspace as it was before the first file-changing call at or after that point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langchain_core.messages import AIMessage, BaseMessage

from cairn.checkpoints.code_rewind import CallSnapshots, call_snapshots, files_changed_by
from cairn.checkpoints.shadow_repo import SnapshotError
from cairn.checkpoints.snapshot_log import SnapshotRecord
from cairn.graph.core.messages import is_person_message
from cairn.graph.session.errors import SessionError

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore


@dataclass
class Target:
    label: str
    #: Transcript index of the first message left behind.
    cut: int
    #: Calls made from ``cut`` on, in order (only these are undone in the code).
    calls: list[str] = field(default_factory=list)


def call_ids(message: BaseMessage) -> list[str]:
    return [tc["id"] for tc in getattr(message, "tool_calls", None) or [] if tc.get("id")]


def find_call(messages: list[BaseMessage], call_id: str) -> str:
    """The full id of a call of this branch (a unique prefix works)."""
    ids = [cid for m in messages for cid in call_ids(m)]
    if call_id in ids:
        return call_id
    matches = [cid for cid in ids if cid.startswith(call_id)]
    if len(matches) == 1:
        return matches[0]
    why = "no call" if not matches else f"{len(matches)} calls"
    raise SessionError(f"{why} matching {call_id!r} in this session's conversation")


def call_target(messages: list[BaseMessage], call_id: str) -> Target:
    call_id = find_call(messages, call_id)
    for index, message in enumerate(messages):
        ids = call_ids(message)
        if call_id in ids:
            later = ids[ids.index(call_id) :] + [c for m in messages[index + 1 :] for c in call_ids(m)]
            return Target(f"call {call_id}", index, later)
    raise SessionError(f"no call {call_id!r}")  # unreachable: find_call found it


def turn_target(messages: list[BaseMessage], turn: int) -> Target:
    starts = [i for i, m in enumerate(messages) if is_person_message(m)]
    if not 1 <= turn <= len(starts):
        raise SessionError(f"turn {turn} does not exist (this conversation has {len(starts)} turn(s))")
    cut = starts[turn - 1]
    return Target(f"turn {turn}", cut, [c for m in messages[cut:] for c in call_ids(m)])


def timeline(session: SessionCore) -> list[CallSnapshots]:
    """The session's snapshotted calls and finished rewinds, in the order they happened.

    A rewind counts as one of the agent's changes (from its ``before_tree`` to its
    ``after_tree``), so what it restored is never mistaken for the person's work.
    """
    log = session.store.snapshots
    items = call_snapshots(log.snapshots(session.id))
    for rec in log.rewinds(session.id):
        code = rec.plan.get("code")
        if rec.status != "done" or not code or not rec.plan.get("after_tree"):
            continue
        before = SnapshotRecord(
            f"rewind:{rec.rewind_id}", "before", 0, code["before_tree"], {}, None, rec.created_at
        )
        after = SnapshotRecord(
            before.call_id, "after", 0, rec.plan["after_tree"], {}, None, rec.ended_at or 0
        )
        items.append(CallSnapshots(before.call_id, before, after))
    return sorted(items, key=lambda item: item.before.created_at)


def code_start(items: list[CallSnapshots], calls: list[str]) -> int | None:
    """Index in ``items`` of the first snapshotted call among ``calls`` (None: no file changes)."""
    wanted = set(calls)
    for index, item in enumerate(items):
        if item.call_id in wanted:
            return index
    return None


@dataclass
class RewindPoint:
    """A place ``/rewind`` offers: a turn, or a call that changed files."""

    turn: int
    text: str
    call_id: str | None = None
    files: list[str] = field(default_factory=list)


def rewind_points(session: SessionCore, messages: list[BaseMessage], *, limit: int = 10) -> list[RewindPoint]:
    """The last ``limit`` turns of the branch, each followed by its calls that changed files."""
    items = {item.call_id: item for item in timeline(session)}
    repo = session.snapshotter.repo if session.snapshotter is not None else None
    points: list[RewindPoint] = []
    turn = 0
    for message in messages:
        if is_person_message(message):
            turn += 1
            points.append(RewindPoint(turn, " ".join(str(message.content).split())[:70]))
        elif isinstance(message, AIMessage) and turn and repo is not None:
            for cid in call_ids(message):
                item = items.get(cid)
                try:
                    files = files_changed_by(repo, item) if item is not None else []
                except SnapshotError:
                    files = []
                if files:
                    points.append(RewindPoint(turn, cid, cid, files))
    first_kept = max(0, turn - limit + 1)
    return [p for p in points if p.turn >= first_kept]
