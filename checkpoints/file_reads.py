"""Which files a session has read, so stale-write checks survive a restart.

``write_file``/``edit_file`` refuse to overwrite a file the session has not
read (or that changed since).  The record of reads lives here, beside the
checkpoints, so an edit approved after a crash or a notebook kernel restart
still knows the model read the file first.
"""

from __future__ import annotations

from typing import Any

from cairn.checkpoints.db import Database
from cairn.checkpoints.text_escape import load_key, store_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS cairn_file_reads (
    thread_id TEXT NOT NULL,
    path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (thread_id, path)
);
"""


class FileReadLog:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(SCHEMA)

    def save(self, thread_id: str, record: Any) -> None:
        self.db.write(
            "INSERT INTO cairn_file_reads (thread_id, path, mtime_ns, size, sha256) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (thread_id, path) DO UPDATE SET mtime_ns = excluded.mtime_ns, "
            "size = excluded.size, sha256 = excluded.sha256",
            (thread_id, store_key(record.path), record.mtime_ns, record.size, record.sha256),
        )

    def forget(self, thread_id: str, path: str) -> None:
        self.db.write(
            "DELETE FROM cairn_file_reads WHERE thread_id = ? AND path = ?", (thread_id, store_key(path))
        )

    def load(self, thread_id: str) -> list[tuple[str, int, int, str]]:
        return [
            (load_key(r[0]), *r[1:])
            for r in self.db.query(
                "SELECT path, mtime_ns, size, sha256 FROM cairn_file_reads WHERE thread_id = ?", (thread_id,)
            )
        ]

    def delete_thread(self, thread_id: str) -> None:
        self.db.write("DELETE FROM cairn_file_reads WHERE thread_id = ?", (thread_id,))
