"""The editor's file system for cairn's file tools (``fs/read_text_file``, ``fs/write_text_file``).

Used when the client advertises the capability: ``read_file`` sees the editor's buffers (unsaved
changes included), ``edit_file``/``write_file`` change them (the editor shows and saves the
change).  The tools run on the session's worker thread; each request is sent on the event loop
and waited for.  A request that fails falls back to the disk for reads and is reported to the
model as a failed write.  The policy has judged the path before any of this runs.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("cairn.acp")
#: How long a tool waits for the editor to answer one file request.
TIMEOUT_S = 30.0


class EditorFiles:
    """``cairn.tools.services.FileAccess`` over the client connection."""

    def __init__(
        self, conn: Any, session_id: str, loop: asyncio.AbstractEventLoop, *, read: bool, write: bool
    ):
        self.conn = conn
        self.session_id = session_id
        self.loop = loop
        self.read = read
        self.write = write

    def read_text(self, path: Path) -> str | None:
        if not self.read:
            return None
        try:
            response = self._wait(self.conn.read_text_file(session_id=self.session_id, path=str(path)))
        except Exception as exc:  # the disk then
            log.warning("the editor could not read %s: %s", path, exc)
            return None
        return response.content

    def write_text(self, path: Path, text: str) -> bool:
        if not self.write:
            return False
        try:
            self._wait(self.conn.write_text_file(session_id=self.session_id, path=str(path), content=text))
        except Exception as exc:
            raise OSError(f"the editor refused the write: {exc}") from None
        return True

    def _wait(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(TIMEOUT_S)
