"""Taking a session's snapshots: the shadow repository plus the snapshot log.

``before`` runs before a call's ``executing`` record, ``after`` the moment its tool
returns.  A failed snapshot (git missing, a disk error) never stops the call: the
failure is logged with the call so a later rewind can say why it cannot restore.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from cairn.checkpoints.location import state_dir
from cairn.checkpoints.shadow_repo import (
    DEFAULT_MAX_FILE_BYTES,
    ShadowRepo,
    Snapshot,
    SnapshotError,
    shadow_dir_for,
)
from cairn.checkpoints.snapshot_log import SnapshotLog


def max_file_bytes(explicit: int | None = None) -> int:
    """The per-file size bound: the argument (the session's ``Settings.storage``: its argument,
    else ``$CAIRN_SNAPSHOT_MAX_FILE_BYTES``), else 10 MiB."""
    return explicit if explicit is not None else DEFAULT_MAX_FILE_BYTES


class Snapshotter:
    """Snapshots of one session's workspace, recorded against its call ids."""

    def __init__(
        self, log: SnapshotLog, thread_id: str, workspace: Path, *, max_bytes: int | None = None
    ) -> None:
        self.log = log
        self.thread_id = thread_id
        self.repo = ShadowRepo(
            shadow_dir_for(state_dir(), workspace),
            workspace,
            index_name=thread_id,
            max_file_bytes=max_file_bytes(max_bytes),
        )
        self._lock = threading.Lock()  # one index per session: parallel calls take turns
        self._warming: threading.Thread | None = None

    def warm(self) -> None:
        """Build the index once in the background, so the first call does not wait for it.

        The first snapshot of a workspace hashes every file (seconds on a large tree); later
        ones only look at what changed.  The warm-up writes its own index file and moves it
        into place when done, so it never contends for the session's index lock and may
        outlive the run; the first snapshot waits for it instead of doing the work twice.
        """
        if self._warming is not None or self.repo.index.exists():
            return
        self._warming = threading.Thread(target=self._warm, name="cairn-snapshot-warmup", daemon=True)
        self._warming.start()

    def _warm(self) -> None:
        repo = self.repo
        scratch = ShadowRepo(
            repo.git_dir,
            repo.workspace,
            index_name=f".warm-{self.thread_id}-{os.getpid()}",
            max_file_bytes=repo.max_file_bytes,
        )
        try:
            scratch.snapshot()
            if not repo.index.exists():
                os.replace(scratch.index, repo.index)
        except (SnapshotError, OSError):
            pass  # the call's own snapshot reports the problem
        finally:
            scratch.index.unlink(missing_ok=True)

    def snapshot(self) -> Snapshot:
        """The workspace now (after any warm-up); raises ``SnapshotError``."""
        if self._warming is not None:
            self._warming.join()
        with self._lock:
            return self.repo.snapshot()

    def take(self, call_id: str, phase: str) -> None:
        try:
            snap = self.snapshot()
        except (SnapshotError, OSError) as exc:
            self.log.record(self.thread_id, call_id, phase, tree=None, error=str(exc))
            return
        self.log.record(self.thread_id, call_id, phase, tree=snap.tree, skipped=snap.skipped)

    def before(self, call_id: str) -> None:
        self.take(call_id, "before")

    def after(self, call_id: str) -> None:
        self.take(call_id, "after")
