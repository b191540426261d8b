"""Waking a process that waits for something another process writes (recorded decisions).

Postgres: ``LISTEN`` on a dedicated connection; the writer's ``pg_notify`` arrives when its
transaction commits.  SQLite has no such thing: the waiter polls.  Either way the caller
re-reads the table after every wake-up (a notification only says "look now"), and a
Postgres waiter also looks every ``FALLBACK_POLL_S`` seconds in case a notification was
missed (a connection that broke and came back).
"""

from __future__ import annotations

import time
from typing import Any

POLL_S = 0.5
FALLBACK_POLL_S = 5.0


class PollingWaiter:
    def __init__(self, interval: float = POLL_S) -> None:
        self.interval = interval
        self._last = time.monotonic()

    def __enter__(self) -> PollingWaiter:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def wait(self, timeout: float) -> bool:
        """Sleep up to ``timeout``; True when it is time to look at the table again."""
        now = time.monotonic()
        due = self._last + self.interval
        time.sleep(max(0.0, min(timeout, due - now)))
        if time.monotonic() >= due:
            self._last = time.monotonic()
            return True
        return False


class ListenWaiter:
    """``LISTEN channel``; ``wait`` returns on a notification for ``key`` or after the timeout."""

    def __init__(self, url: str, channel: str, key: str) -> None:
        self.url = url
        self.channel = channel
        self.key = key
        self._conn: Any = None
        self._last = time.monotonic()

    def __enter__(self) -> ListenWaiter:
        import psycopg
        from psycopg import sql

        from cairn.checkpoints.postgres_db import translated_errors

        with translated_errors():
            self._conn = psycopg.connect(self.url, autocommit=True)
            self._conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def wait(self, timeout: float) -> bool:
        """Up to ``timeout``; True on a notification for ``key`` or when a fallback look is due."""
        from cairn.checkpoints.postgres_db import translated_errors

        deadline = time.monotonic() + max(0.0, timeout)
        with translated_errors():
            while (left := deadline - time.monotonic()) > 0:
                for note in self._conn.notifies(timeout=left, stop_after=1):
                    if note.payload == self.key:
                        self._last = time.monotonic()
                        return True
        if time.monotonic() - self._last >= FALLBACK_POLL_S:
            self._last = time.monotonic()
            return True
        return False
