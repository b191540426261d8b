"""Collecting grep results in bounded memory: every file's counts, only the first result lines.

The backends report files in no fixed order (ripgrep searches in parallel), while
the output lists them sorted by path and shows at most ``max_rows`` result lines.
So whenever more than about twice the needed records are held, the surplus is
dropped: the files, sorted by path, keep records up to ``max_rows`` in total and
the rest keep none.  The path where that happens is a *cutoff*; it only moves
down, and files after it need no records at all.  Counts are always complete.
"""

from __future__ import annotations

from cairn.tools.file_ops.grep_types import FileResult


class Collector:
    def __init__(self, max_rows: int | None) -> None:
        self.max_rows = max_rows
        self._files: dict[bytes, FileResult] = {}
        self._held = 0
        self._cutoff: bytes | None = None

    def room(self, path: bytes) -> int | None:
        """How many records of ``path`` may be worth building (``None``: no limit)."""
        if self._cutoff is not None and path > self._cutoff:
            return 0
        return self.max_rows

    def add(self, result: FileResult) -> None:
        """Add the result of a file (or another piece of one already added)."""
        old = self._files.get(result.path)
        if old is not None:
            old.count += result.count
            old.rows += result.rows
            old.records += result.records
        else:
            self._files[result.path] = result
        self._held += len(result.records)
        if self.max_rows is not None and self._held > 2 * self.max_rows + 64:
            self._trim(self.max_rows)

    def results(self) -> list[FileResult]:
        """Every file with a match, sorted by path, records trimmed to ``max_rows`` in total."""
        if self.max_rows is not None:
            self._trim(self.max_rows)
        return [self._files[p] for p in sorted(self._files) if self._files[p].count]

    def _trim(self, room: int) -> None:
        for path in sorted(p for p, r in self._files.items() if r.records):
            records = self._files[path].records
            if len(records) >= room:
                del records[room:]
                if self._cutoff is None or path < self._cutoff:
                    self._cutoff = path
            room -= len(records)
        self._held = (self.max_rows or 0) - room
