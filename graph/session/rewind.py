"""Rewind, redo and per-call undo: plan, journal, apply — and finish after a crash.

Every operation is planned first (a fresh snapshot of the workspace, the target snapshot,
conflicts), then journaled in ``cairn_rewinds`` as ``started`` with its whole plan, then
applied (files, then the conversation head), then marked ``done``.  A process killed in
between leaves a ``started`` plan that ``recover`` applies again — every step is
idempotent — when the session is next opened or rewound.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from cairn.checkpoints.code_rewind import CallSnapshots, CodePlan, files_changed_by, plan_restore
from cairn.checkpoints.restore import apply_ops, diffs
from cairn.checkpoints.shadow_repo import Snapshot, SnapshotError
from cairn.checkpoints.snapshot_log import RewindRecord
from cairn.graph.build import update_state_as
from cairn.graph.session.errors import SessionError
from cairn.graph.session.rewind_result import RewindResult
from cairn.graph.session.rewind_targets import call_ids, call_target, code_start, timeline, turn_target

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore


def rewind(
    session: SessionCore,
    call_id: str | None,
    *,
    turn: int | None,
    code: bool,
    conversation: bool,
    dry_run: bool,
    force: bool,
) -> RewindResult:
    if (call_id is None) == (turn is None):
        raise SessionError("rewind needs a call id or a turn (not both)")
    if not (code or conversation):
        raise SessionError("nothing to rewind: choose code, conversation or both")
    head = session.snapshot().values.get("head")
    messages = session.store.transcript.read(session.id, head)
    target = call_target(messages, call_id) if call_id is not None else turn_target(messages, int(turn or 0))
    result = RewindResult(session.id, target.label, code, conversation, dry_run, old_head=head, head=head)
    plan: CodePlan | None = None
    if code:
        items = timeline(session)
        start = code_start(items, target.calls)
        if start is not None:
            first = items[start].before
            if first.tree is None:
                raise SessionError(f"no snapshot of the workspace before {first.call_id}: {first.error}")
            plan = _plan(session, Snapshot(first.tree, first.skipped), items[start:], None, force)
    rules = None
    if conversation:
        result.head = messages[target.cut - 1].id if target.cut > 0 else None
        result.messages_rewound = len(messages) - target.cut
        kept = [cid for m in messages[: target.cut] for cid in call_ids(m)]
        rules = rules_after_rewind(session, target.calls, kept)
    return _execute(session, "rewind", result, plan, dry_run, rules)


def redo(session: SessionCore, *, dry_run: bool = False, force: bool = False) -> RewindResult:
    """Undo the last rewind (or undo): files and conversation as they were before it."""
    records = [r for r in session.store.snapshots.rewinds(session.id) if r.status == "done"]
    if not records or records[-1].kind == "redo":
        raise SessionError("there is no rewind to redo")
    last = records[-1]
    if any(s.created_at > (last.ended_at or 0) for s in session.store.snapshots.snapshots(session.id)):
        raise SessionError("the agent has changed files since the last rewind; rewind to a call instead")
    state_head = session.snapshot().values.get("head")
    plan_data = last.plan
    result = RewindResult(
        session.id, "redo", bool(plan_data.get("code")), bool(plan_data.get("conversation"))
    )
    result.dry_run, result.old_head, result.head = dry_run, state_head, state_head
    plan: CodePlan | None = None
    if plan_data.get("code") and plan_data.get("after_tree"):
        code = plan_data["code"]
        pseudo = _pseudo(last)
        plan = _plan(session, Snapshot(code["before_tree"]), [pseudo], None, force)
    rules = None
    if plan_data.get("conversation"):
        result.head = plan_data.get("old_head")
        rules = plan_data.get("old_rules")  # the "always" rules the rewind dropped are back
    return _execute(session, "redo", result, plan, dry_run, rules)


def undo_call(
    session: SessionCore, call_id: str, *, dry_run: bool = False, force: bool = False
) -> RewindResult:
    """Undo one call's file changes alone (where it is the latest change to those files)."""
    items = timeline(session)
    index, files = _undo_scope(session, items, call_id)
    item = items[index]
    assert item.before.tree is not None
    result = RewindResult(session.id, f"undo {item.call_id}", True, False, dry_run)
    result.head = result.old_head = session.snapshot().values.get("head")
    plan = _plan(session, Snapshot(item.before.tree, item.before.skipped), items[index:], files, force)
    return _execute(session, "undo", result, plan, dry_run)


def undo_problem(session: SessionCore, call_id: str) -> str | None:
    """Why ``call_id`` cannot be undone alone (None: it can)."""
    try:
        _undo_scope(session, timeline(session), call_id)
    except (SessionError, SnapshotError) as exc:
        return str(exc)
    return None


def _undo_scope(session: SessionCore, items: list[CallSnapshots], call_id: str) -> tuple[int, list[str]]:
    repo = _repo(session)
    found = [i for i, item in enumerate(items) if item.call_id == call_id]
    found = found or [i for i, item in enumerate(items) if item.call_id.startswith(call_id)]
    if len(found) != 1:
        raise SessionError(f"no file-changing call matching {call_id!r}")
    index = found[0]
    files = files_changed_by(repo, items[index])
    if not files:
        raise SessionError(f"{items[index].call_id} changed no files")
    for later in items[index + 1 :]:
        touched = set(files_changed_by(repo, later)) if later.after else set(files)
        if touched & set(files):
            raise SessionError(f"{later.call_id} changed the same files later; rewind to that call instead")
    return index, files


def _repo(session: SessionCore) -> Any:
    if session.snapshotter is None:
        raise SessionError("snapshots are turned off for this session")
    return session.snapshotter.repo


def _plan(
    session: SessionCore, target: Snapshot, later: list[CallSnapshots], paths: list[str] | None, force: bool
) -> CodePlan:
    repo = _repo(session)
    try:
        now = session.snapshotter.snapshot()
        return plan_restore(repo, target, now, later=later, paths=paths, force=force)
    except SnapshotError as exc:
        raise SessionError(f"cannot snapshot the workspace: {exc}") from None


def _pseudo(record: RewindRecord) -> CallSnapshots:
    from cairn.checkpoints.snapshot_log import SnapshotRecord

    after = SnapshotRecord("rewind", "after", 0, record.plan["after_tree"], {}, None, record.ended_at or 0)
    return CallSnapshots("rewind", after, after)


def _execute(
    session: SessionCore,
    kind: str,
    result: RewindResult,
    plan: CodePlan | None,
    dry_run: bool,
    rules: list[str] | None = None,
) -> RewindResult:
    if plan is not None:
        result.restored = [op.path for op in plan.ops if op.mode is not None]
        result.deleted = [op.path for op in plan.ops if op.mode is None]
        result.not_restored = dict(plan.not_restored)
        result.conflicts = list(plan.conflicts)
    if dry_run:
        if plan is not None:
            result.diffs = diffs(_repo(session), plan.ops)
        return result
    data = {
        "result": result.to_json(),
        "code": plan.to_json() if plan is not None else None,
        "conversation": result.conversation and kind != "undo",
        "old_head": result.old_head,
        "new_head": result.head,
    }
    if rules is not None:  # the session's "always" rules after the rewind, and before it (for redo)
        data["session_rules"] = rules
        data["old_rules"] = list(session.snapshot().values.get("session_rules") or [])
    result.rewind_id = session.store.snapshots.start_rewind(session.id, kind, data)
    return _apply(session, result.rewind_id, data)


def _apply(session: SessionCore, rewind_id: str, data: dict[str, Any]) -> RewindResult:
    result = RewindResult(**data["result"])
    result.rewind_id = rewind_id
    if data.get("code"):
        repo = _repo(session)
        failed = apply_ops(repo, CodePlan.from_json(data["code"]).ops)
        for path, why in failed.items():
            result.not_restored[path] = why
        result.restored = [p for p in result.restored if p not in failed]
        result.deleted = [p for p in result.deleted if p not in failed]
        try:
            data["after_tree"] = session.snapshotter.snapshot().tree
        except SnapshotError:
            data["after_tree"] = None
        sync_reads(session, [*result.restored, *result.deleted], known=bool(data.get("conversation")))
    if data.get("conversation"):
        values: dict[str, Any] = {
            "head": data["new_head"],
            "pending_tool_calls": [],
            "completed_tool_calls": [],
            "paused": None,
        }
        if data.get("session_rules") is not None:
            values["session_rules"] = data["session_rules"]
        update_state_as(session.graph, session.config(), values, "reasoning")
    data["result"] = result.to_json()
    session.store.snapshots.finish_rewind(session.id, rewind_id, data)
    return result


def recover(session: SessionCore) -> list[RewindResult]:
    """Complete rewinds a crash interrupted (from their journaled plans)."""
    done: list[RewindResult] = []
    for record in session.store.snapshots.rewinds(session.id):
        if record.status == "started":
            result = _apply(session, record.rewind_id, dict(record.plan))
            result.recovered = True
            done.append(result)
    return done


_ALWAYS = re.compile(r"^approved always \((.*)\)(?: without sandbox)?$", re.DOTALL)


def rules_after_rewind(session: SessionCore, rewound: list[str], kept: list[str]) -> list[str]:
    """The session's "always" rules once the calls ``rewound`` are gone from the conversation:
    a rule granted at one of them stops applying, unless a call that stays granted it too."""

    def granted(call_ids_: list[str]) -> set[str]:
        entries = session.store.journal.get_many(session.id, call_ids_) if call_ids_ else {}
        found = set()
        for entry in entries.values():
            match = _ALWAYS.match(str((entry.details or {}).get("decision") or ""))
            if match:
                found.add(match.group(1))
        return found

    dropped = granted(rewound) - granted(kept)
    current = list(session.snapshot().values.get("session_rules") or [])
    return [rule for rule in current if rule not in dropped]


def sync_reads(session: SessionCore, paths: list[str], *, known: bool) -> None:
    """Bring the session's file-read records in line with files a rewind, redo or undo wrote.

    cairn wrote those files, not the person: the next edit must not be refused as "modified
    on disk since it was last read".  ``known``: the conversation went back too, so the model
    knows the restored content (it read or wrote it then) and the record is renewed; otherwise
    (code only, undo) the model's memory of the file is out of date and the record is dropped,
    so it must read the file again before changing it.
    """
    reads = session.services.reads
    for rel in paths:
        path = session.workspace.root / rel
        if reads.get(path) is None:
            continue
        if known and path.is_file():
            reads.record(path)  # also saved in the store (the tracker's on_record)
        else:
            reads.forget(path)
            session.store.file_reads.forget(session.id, reads.key(path))
