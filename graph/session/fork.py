"""``Session.fork``: a new session from an earlier checkpoint of this one (issue 34).

The fork gets its own copy of the conversation up to that point (new message ids in its own
transcript thread), the state of that checkpoint (tasks, "always" rules, counters, context
bookkeeping, with message ids mapped to the copies), the files-read records, and its own
store connection; the source session is only read.  A fork starts at $0: its cost is what it
spends.  The workspace is not rewound (``Session.rewind`` does that, on the source).

Fork points: a turn boundary (``turn=N``: as the session stood just before your N-th message),
or a checkpoint (``at=ID``, see ``Session.checkpoints()``) where nothing is in flight: at the end
of a turn, before a model call, or waiting for approval (the fork asks again).  A checkpoint with
calls about to run or just run is refused: a fork never runs a call its source already ran.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from cairn.graph.build import update_state_as
from cairn.graph.core.messages import is_person_message
from cairn.graph.session.errors import SessionError

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore

#: Where a fork may start (``snapshot.next``) and the node its state is written as, so the
#: copied graph goes on from the same place.
FORKABLE = {(): "reasoning", ("reasoning",): "observation", ("human_approval",): "tool_routing"}
#: State the fork does not inherit (its own money; runs' transient bookkeeping).
NOT_INHERITED = ("spend", "run_spend", "agents_spend", "compact_request")


def fork_point(session: SessionCore, at: str | None, turn: int | None) -> Any:
    """The LangGraph snapshot to fork from (None: before the first message)."""
    if at is not None and turn is not None:
        raise SessionError("fork from a checkpoint or a turn, not both")
    graph, config = session.graph, session.config()
    if at is not None:
        wanted = {"configurable": {**config["configurable"], "checkpoint_id": at}}
        saved = graph.checkpointer.get_tuple(wanted)
        if saved is None or saved.config["configurable"].get("checkpoint_id") != at:
            raise SessionError(f"no checkpoint {at!r} in session {session.id}")
        return graph.get_state(wanted)
    if turn is None:
        return graph.get_state(config)
    if turn < 1:
        raise SessionError("turns count from 1")
    if turn == 1:
        return None
    for snap in graph.get_state_history(config):
        if tuple(snap.next) or not snap.values.get("head"):
            continue
        messages = session.store.transcript.read(session.id, snap.values["head"])
        if sum(is_person_message(m) for m in messages if m.type == "human") == turn - 1:
            return snap
    raise SessionError(f"session {session.id} has no end of turn {turn - 1} to fork from")


def fork_into(session: SessionCore, target: SessionCore, snap: Any) -> None:
    """Write the fork's transcript and state into ``target`` (a fresh session's core)."""
    if snap is None:
        return
    where = tuple(snap.next)
    if where not in FORKABLE:
        raise SessionError(
            f"checkpoint {snap.config['configurable'].get('checkpoint_id')} is in the middle of running "
            f"calls (next: {', '.join(where)}); fork from a turn or a checkpoint where nothing runs"
        )
    values = copy.deepcopy(dict(snap.values))  # nothing mutable shared with the source
    old = session.store.transcript.read(session.id, values.get("head")) if values.get("head") else []
    old_ids = [m.id for m in old]
    copies = [m.model_copy(deep=True) for m in old]
    head = target.store.transcript.append(target.id, None, copies) if copies else None
    mapping = dict(zip(old_ids, [m.id for m in copies], strict=True))
    values = {k: _remap(v, mapping) for k, v in values.items() if k not in NOT_INHERITED}
    values["head"] = head
    reads = session.store.file_reads.load(session.id)
    for path, mtime_ns, size, sha256 in reads:
        record = SimpleNamespace(path=path, mtime_ns=mtime_ns, size=size, sha256=sha256)
        target.store.file_reads.save(target.id, record)
    target.services.reads.seed(target.store.file_reads.load(target.id))
    update_state_as(target.graph, target.config(), values, FORKABLE[where])


def _remap(value: Any, mapping: dict[str, str]) -> Any:
    """Message ids (the compaction marker, ``elide_before``...) pointed at the copies."""
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: _remap(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [_remap(v, mapping) for v in value]
    return value
