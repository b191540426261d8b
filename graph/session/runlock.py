"""One run of a session at a time, across threads, processes and hosts.

A run holds the store's run lock for as long as it runs (``Store.run_lock``: an ``flock``
beside a SQLite file, a Postgres advisory lock on a dedicated connection).  Either is
released when the process ends, however it ends (SIGKILL included), so a crashed run never
leaves a stale lock and ``cairn resume`` can recover at once; a second process that tries to
drive the same session while it runs is refused instead of running a side effect twice.

The lock is re-entrant for the thread that holds it: a run waiting for decisions recorded
elsewhere (``Session.send(..., wait=True)``) keeps the session while it applies them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from cairn.checkpoints.runlock import RunLocked
from cairn.graph.session.errors import SessionError


class SessionBusy(SessionError):
    """The session is being run (or waited on) by another thread or process."""


class RunLock:
    def __init__(self, store: Any, session_id: str) -> None:
        self._store = store
        self._session_id = session_id
        self._thread_lock = threading.Lock()
        self._owner: int | None = None

    @property
    def held_here(self) -> bool:
        return self._owner == threading.get_ident()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        if self.held_here:  # re-entered by the thread that holds it (decide inside wait ...)
            yield
            return
        if not self._thread_lock.acquire(blocking=False):
            raise SessionBusy("this session is already running in this process (one run at a time)")
        try:
            lock = self._store.run_lock(self._session_id)
            try:
                lock.acquire()
            except RunLocked as exc:
                raise SessionBusy(str(exc)) from None
            self._owner = threading.get_ident()
            try:
                yield
            finally:
                self._owner = None
                lock.release()
        finally:
            self._thread_lock.release()
