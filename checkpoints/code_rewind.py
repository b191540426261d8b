"""Planning a restore of the workspace from snapshots: which files change, which are conflicts.

A plan compares the target snapshot with a fresh snapshot of the workspace now: every
path that differs is restored (written back with the target's bytes and mode, or deleted
when the target did not have it).  A path is left alone, and reported, when

- the person changed it after the target (a conflict, unless forced): the session's
  snapshots bracket each call (``before``/``after``), so a change between one call's
  ``after`` and the next call's ``before`` — or since the last ``after`` — is not the
  agent's;
- the target could not hold it (above the size bound, a nested repository), or it is
  above the size bound now (who changed it cannot be told; forcing restores it).

Plans are plain data (``to_json``), journaled before any file is touched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cairn.checkpoints.shadow_repo import ShadowRepo, Snapshot
from cairn.checkpoints.snapshot_log import SnapshotRecord

CONFLICT = "changed since by someone other than the agent (use --force to overwrite)"


@dataclass(frozen=True)
class FileOp:
    path: str
    mode: str | None = None  # None: delete the path
    blob: str | None = None

    @property
    def action(self) -> str:
        return "delete" if self.mode is None else "restore"


@dataclass
class CodePlan:
    target_tree: str
    before_tree: str  # the workspace when the rewind started (what a redo goes back to)
    ops: list[FileOp] = field(default_factory=list)
    not_restored: dict[str, str] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "target_tree": self.target_tree,
            "before_tree": self.before_tree,
            "ops": [[op.path, op.mode, op.blob] for op in self.ops],
            "not_restored": self.not_restored,
            "conflicts": self.conflicts,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CodePlan:
        return cls(
            data["target_tree"],
            data["before_tree"],
            [FileOp(p, m, b) for p, m, b in data.get("ops", [])],
            dict(data.get("not_restored", {})),
            list(data.get("conflicts", [])),
        )


@dataclass(frozen=True)
class CallSnapshots:
    call_id: str
    before: SnapshotRecord
    after: SnapshotRecord | None


def call_snapshots(records: list[SnapshotRecord]) -> list[CallSnapshots]:
    """The session's snapshotted calls in the order they ran (by their ``before`` record)."""
    afters = {r.call_id: r for r in records if r.phase == "after"}
    return [CallSnapshots(r.call_id, r, afters.get(r.call_id)) for r in records if r.phase == "before"]


def person_changes(repo: ShadowRepo, later: list[CallSnapshots], now: str, paths: list[str]) -> set[str]:
    """Those of ``paths`` changed between the agent's calls in ``later`` (and since the last)."""
    found: set[str] = set()
    for index, item in enumerate(later):
        start = item.after.tree if item.after else None
        end = later[index + 1].before.tree if index + 1 < len(later) else now
        if start and end:  # a call cut short by a crash has no `after`: its changes count as the agent's
            found.update(repo.diff(start, end, paths))
    return found


def plan_restore(
    repo: ShadowRepo,
    target: Snapshot,
    now: Snapshot,
    *,
    later: list[CallSnapshots],
    paths: list[str] | None = None,
    force: bool = False,
) -> CodePlan:
    """Restore ``paths`` (default: every path that differs) to ``target``."""
    plan = CodePlan(target.tree, now.tree)
    changed = repo.diff(target.tree, now.tree, paths)
    for path, why in target.skipped.items():
        if paths is None or path in paths:
            plan.not_restored[path] = f"not in the snapshot: {why}"
    candidates = [p for p in changed if p not in target.skipped]
    for path in candidates:
        if path in now.skipped and not force:
            plan.not_restored[path] = f"now {now.skipped[path]}; who changed it cannot be told (use --force)"
    candidates = [p for p in candidates if p not in plan.not_restored]
    if not force and candidates:
        for path in sorted(person_changes(repo, later, now.tree, candidates)):
            plan.conflicts.append(path)
            plan.not_restored[path] = CONFLICT
    wanted = [p for p in candidates if p not in plan.not_restored]
    entries = repo.entries(target.tree, wanted)
    for path in wanted:
        entry = entries.get(path)
        if entry is not None and entry.mode == "160000":
            plan.not_restored[path] = "a nested repository (its contents are not snapshotted)"
            continue
        plan.ops.append(FileOp(path, entry.mode, entry.blob) if entry else FileOp(path))
    return plan


def files_changed_by(repo: ShadowRepo, item: CallSnapshots) -> list[str]:
    """The files one call changed (empty when it has no complete pair of snapshots)."""
    if item.after is None or not item.before.tree or not item.after.tree:
        return []
    return repo.diff(item.before.tree, item.after.tree)
