"""The cross-process half of "one run of a session at a time".

- SQLite: an exclusive ``flock`` on a small file beside the database.  The OS releases it
  when the process exits, however it exits (SIGKILL included).
- Postgres: a session-level advisory lock keyed by the session id, taken on a dedicated
  connection and held for the run.  The server releases it when that connection ends — the
  process exiting, crashing or its host disappearing (TCP keepalives are set short on the
  connection, so a vanished host is noticed in about a minute, not the OS default of hours).

Either way a crashed run never leaves a stale lock, and a second process (on any host that
reaches the same database) is refused while the first runs.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
from pathlib import Path
from typing import Any

from cairn.checkpoints.errors import StoreBusy

#: Bytes of the owner's pid in a lock file (space-padded).
PID_WIDTH = 16


class RunLocked(StoreBusy):
    """Another process holds the session's run lock; the message says which, when known."""


class NoRunLock:
    """An in-memory database is private to its process: the thread lock is all it needs."""

    def acquire(self) -> None:
        pass

    def release(self) -> None:
        pass


class FileRunLock:
    def __init__(self, location: str, session_id: str) -> None:
        self.path = Path(location).with_name(Path(location).name + ".locks") / f"{session_id}.lock"
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise RunLocked(
                f"this session is running in another process (pid {owner}); "
                "wait for it to finish or stop it, then resume"
            ) from None
        # The pid padded to a fixed width overwrites the last owner's in place: truncating the
        # file on every run cost ~3 ms of CPU on some filesystems (issue 30).
        os.pwrite(fd, f"{os.getpid():<{PID_WIDTH}}".encode(), 0)
        if os.fstat(fd).st_size > PID_WIDTH:
            os.ftruncate(fd, PID_WIDTH)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def lock_key(session_id: str) -> int:
    """A stable signed 64-bit advisory-lock key for a session id."""
    digest = hashlib.blake2b(b"cairn-run:" + session_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def owner_label() -> str:
    """Who holds a lock, as other processes see it (``pg_stat_activity.application_name``)."""
    return f"cairn {socket.gethostname()} pid {os.getpid()}"[:63]


class AdvisoryRunLock:
    def __init__(self, url: str, session_id: str) -> None:
        self.url = url
        self.key = lock_key(session_id)
        self._conn: Any = None

    def acquire(self) -> None:
        import psycopg

        from cairn.checkpoints.postgres_db import translated_errors

        with translated_errors():
            conn = psycopg.connect(
                self.url,
                autocommit=True,
                application_name=owner_label(),
                keepalives=1,
                keepalives_idle=15,
                keepalives_interval=5,
                keepalives_count=3,
            )
            try:
                # The server's side of the same: a host that vanished releases the lock soon.
                conn.execute("SET tcp_keepalives_idle = 15")
                conn.execute("SET tcp_keepalives_interval = 5")
                conn.execute("SET tcp_keepalives_count = 3")
                got = conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()[0]
                if not got:
                    holder = self._holder(conn)
                    raise RunLocked(
                        f"this session is running in another process ({holder}); "
                        "wait for it to finish or stop it, then resume"
                    )
            except BaseException:
                conn.close()
                raise
        self._conn = conn

    def _holder(self, conn: Any) -> str:
        row = conn.execute(
            "SELECT a.application_name, a.client_addr FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.classid::bigint = %s AND l.objid::bigint = %s AND l.objsubid = 1",
            ((self.key >> 32) & 0xFFFFFFFF, self.key & 0xFFFFFFFF),
        ).fetchone()
        if not row:
            return "another host"
        name, addr = row
        return f"{name or 'unknown'}{f' from {addr}' if addr else ''}"

    def release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        except Exception:
            pass  # closing the connection releases it anyway
        finally:
            conn.close()
