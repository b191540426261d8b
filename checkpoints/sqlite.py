"""SQLite connection and checkpoint saver tuned for cairn.

- WAL + ``synchronous=NORMAL``: survives a process crash (SIGKILL) and costs about a
  tenth of the default FULL per commit; only an OS crash/power loss can drop the
  last commits.
- ``auto_vacuum=INCREMENTAL`` on new databases, so pruned checkpoints free disk space.
- A busy timeout so a second process (``cairn sessions`` while a run is going)
  waits instead of failing.
- Compact integer channel versions: ``SqliteSaver`` writes 50-character version
  strings for every channel into every checkpoint, which dominates the size of
  small checkpoints.
- Checkpoints (and large pending writes) deflated (``cairn.checkpoints.zipped_serde``).
"""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from cairn.checkpoints.zipped_serde import ZippedSerializer

BUSY_TIMEOUT_MS = 10_000


def connect(location: str) -> sqlite3.Connection:
    if location != ":memory:":
        Path(location).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(location, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # Only takes effect on a new, empty database: lets pruning give pages back to the OS.
    conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
    if location != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    return conn


class CompactSqliteSaver(SqliteSaver):
    """``SqliteSaver`` with small integer channel versions (reads old string versions too) and
    deflated checkpoints (reads the plain ones of older databases too)."""

    def __init__(self, conn: sqlite3.Connection, *, serde: Any = None) -> None:
        super().__init__(conn, serde=serde)
        self.serde = ZippedSerializer(self.serde)

    def with_allowlist(self, extra_allowlist: Any) -> CompactSqliteSaver:
        """LangGraph's strict-msgpack allowlist (``LANGGRAPH_STRICT_MSGPACK``) applied to the
        serializer inside the deflating one (LangGraph's own version would not see through it)."""
        inner = self.serde.serde
        narrowed = (
            inner.with_msgpack_allowlist(extra_allowlist)
            if hasattr(inner, "with_msgpack_allowlist")
            else inner
        )
        if narrowed is inner:
            return self
        clone = copy.copy(self)
        clone.serde = ZippedSerializer(narrowed)
        return clone

    def get_next_version(self, current: Any, channel: Any) -> int:
        if current is None:
            return 1
        if isinstance(current, str):
            current = int(current.split(".", 1)[0])
        return int(current) + 1
