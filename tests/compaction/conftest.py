from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import kill_driver

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa\n"


class Project:
    """A workspace of 4 KB files, a database, and the counted test tools."""

    def __init__(self, root: Path, db: str, files: int = 20) -> None:
        self.root = root
        self.ws = root / "ws"
        self.ws.mkdir()
        self.db = db  # a SQLite file or a postgresql:// URL
        self.marks = root / "marks"
        self.marks.mkdir()
        kill_driver.MARKS = self.marks
        self.add_files(files)

    def add_files(self, count: int) -> None:
        for i in range(count):
            (self.ws / f"f{i:02d}.txt").write_text(WORDS * 70)  # 4,060 bytes

    def tools(self) -> list:
        from cairn.tools.workspace import Workspace

        ws = Workspace(self.ws)
        return [cls(ws) for cls in kill_driver.TEST_TOOLS]


@pytest.fixture
def project(tmp_path, db_location) -> Project:
    """On each backend (ids ``[sqlite]`` / ``[postgres]``)."""
    return Project(tmp_path, db_location)


def read_turn(i: int, files: int = 20) -> dict:
    """Read file ``i`` (of ``files``); cairn pauses a run that repeats an identical call 4 times,
    so a long script needs as many files as turns."""
    return {
        "tool_calls": [{"name": "read_file", "args": {"file_path": f"f{i % files:02d}.txt"}, "id": f"r{i}"}]
    }
