"""Live output lines for the person watching, throttled and cheap even for a flood.

The reader thread ``feed``s raw chunks; only the last few complete lines of each chunk
are ever split out (a 1 GB ``yes`` costs a few ``rfind`` calls per 64 KB chunk).  The
thread that waits for the command calls ``drain()`` every tick and hands the lines to
``ToolContext.progress`` - so the callback runs on the caller's thread, at most
``MAX_LINES_PER_TICK`` lines per tick; when output is faster, the most recent win.
"""

from __future__ import annotations

import threading
from collections import deque

from cairn.tools.shell.text import clean_for_model

MAX_LINE_CHARS = 300
MAX_LINES_PER_TICK = 20
_MAX_PARTIAL = 4096


class LineFeed:
    """Collects the most recent complete lines of one or more streams."""

    def __init__(self, max_lines: int = MAX_LINES_PER_TICK) -> None:
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial: dict[str, bytearray] = {}
        self._lock = threading.Lock()

    def feed(self, data: bytes, prefix: str = "") -> None:
        if not data:
            return
        with self._lock:
            partial = self._partial.setdefault(prefix, bytearray())
            last_nl = data.rfind(b"\n")
            if last_nl < 0:
                if len(partial) < _MAX_PARTIAL:
                    partial += data[: _MAX_PARTIAL - len(partial)]
                return
            wanted = self._lines.maxlen or MAX_LINES_PER_TICK
            found: list[bytes] = []
            end = last_nl
            while len(found) < wanted:
                start = data.rfind(b"\n", 0, end)
                if start < 0:
                    found.append(bytes(partial) + data[:end])
                    break
                found.append(data[start + 1 : end])
                end = start
            for raw in reversed(found):
                self._push(prefix, raw)
            partial.clear()
            partial += data[last_nl + 1 : last_nl + 1 + _MAX_PARTIAL]

    def flush_partial(self) -> None:
        """At the end of the output: an unterminated last line still counts."""
        with self._lock:
            for prefix, partial in self._partial.items():
                if partial:
                    self._push(prefix, bytes(partial))
                    partial.clear()

    def _push(self, prefix: str, raw: bytes) -> None:
        text = clean_for_model(raw.decode("utf-8", errors="replace")).rstrip()
        if not text:
            return
        if len(text) > MAX_LINE_CHARS:
            text = text[: MAX_LINE_CHARS - 1] + "…"
        self._lines.append(prefix + text)

    def drain(self) -> list[str]:
        with self._lock:
            lines = list(self._lines)
            self._lines.clear()
            return lines
