from __future__ import annotations

from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.tools.workspace import Workspace
from tests.support import kill_driver


class Harness:
    """A session on a scripted model with the counted test tools of the kill driver."""

    def __init__(self, root: Path, db: str | None = None) -> None:
        self.root = root
        self.ws = root / "ws"
        self.ws.mkdir()
        self.marks = root / "marks"
        self.marks.mkdir()
        self.db = db or str(root / "cairn.db")
        self.opened: list[Session] = []
        kill_driver.MARKS = self.marks

    def tools(self) -> list:
        w = Workspace(self.ws)
        return [cls(w) for cls in kill_driver.TEST_TOOLS]

    def session(self, turns: list[dict], **kwargs) -> Session:
        model = ScriptedChatModel.from_turns(turns)
        session = Session(self.ws, model=model, db=self.db, tools=self.tools(), **kwargs)
        self.opened.append(session)
        return session

    def close(self) -> None:
        """Close what the test left open (a Postgres store holds a connection pool)."""
        for session in self.opened:
            session.close()

    def runs(self) -> list[str]:
        log = self.marks / "runs.log"
        return log.read_text().split() if log.exists() else []


@pytest.fixture
def harness(tmp_path, db_location) -> Harness:
    """A harness on each backend (ids ``[sqlite]`` / ``[postgres]``)."""
    h = Harness(tmp_path, db_location)
    yield h
    h.close()


def effect(label: str, name: str = "effect", seconds: float = 0.0, cid: str | None = None) -> dict:
    return {"name": name, "args": {"label": label, "seconds": seconds}, "id": cid or f"call_{label}"}
