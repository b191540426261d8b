"""The stream-json lines of real runs stay byte-identical (issue 29: typed events keep the format).

Scripted runs (streamed text, a shell command with progress lines, an approval and a ``--wait``
style wait, a manual compaction that finds nothing and one that summarizes, a sub-agent) are
written by ``HeadlessOutput`` as ``cairn -p --output-format stream-json`` writes them; ids and
clock readings are replaced by placeholders, the rest is compared to
``tests/cli/golden/stream_json.jsonl`` byte for byte.  Regenerate after an intended format
change (a new version of the format, documented in docs/cli.md) with
``CAIRN_REGEN_GOLDEN=1 .venv/bin/pytest tests/cli/test_stream_json_golden.py``.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from cairn import Session
from cairn.graph.apps.cli.output import HeadlessOutput
from cairn.graph.models.scripted import ScriptedChatModel
from tests.graph.agent_model import AgentsModel, call

GOLDEN = Path(__file__).parent / "golden" / "stream_json.jsonl"
REGEN = os.environ.get("CAIRN_REGEN_GOLDEN") == "1"

#: Values that change from run to run: clock readings and durations.
_VOLATILE = re.compile(r'"(elapsed_s|duration_s|duration_ms|started_at|finished_at|at)": [0-9.e+-]+')
_SECONDS = re.compile(r"\(\d+\.\d+s\)")


def _tool(name: str, cid: str, **args: object) -> dict:
    return {"name": name, "args": args, "id": cid}


def _scripted(ws: Path, db: str, turns: list[dict], mode: str) -> Session:
    return _headless(Session(ws, model=ScriptedChatModel.from_turns(turns), db=db, mode=mode))


def _headless(session: Session) -> Session:
    """As `cairn -p` runs it: notifications stay off in headless runs unless asked for."""
    session.core.surface = "headless"
    return session


def _runs(tmp: Path) -> tuple[str, list[str]]:
    """Every scenario's stream-json text, and the session ids to replace."""
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("alpha\nbeta\n")
    db = str(tmp / "cairn.db")
    out = io.StringIO()
    ids: list[str] = []

    def output() -> HeadlessOutput:
        return HeadlessOutput("stream-json", out=out)

    # 1. streamed text, a read and a shell command with two output lines, an answer
    turns = [
        {"content": "Let me look.", "tool_calls": [_tool("read_file", "r1", file_path="a.txt")]},
        {"tool_calls": [_tool("bash", "b1", command="echo one; echo two")]},
        {"content": "Both lines **printed**."},
    ]
    s = _scripted(ws, db, turns, "bypass")
    ids.append(s.id)
    o = output()
    o.start(s)
    o.finish(s.send("show me", stream=True, on_event=o.on_event), [])
    s.close()
    # 2. a manual compaction with nothing old enough, then one that summarizes (model summary)
    o = output()
    s = _scripted(ws, db, [{"content": "hi"}], "bypass")
    ids.append(s.id)
    s.compact(on_event=o.on_event)
    s.close()
    # Long answers that do not loop on one piece (EchoGuard cuts a reply that does).
    long_turns = [{"content": f"answer {i} " + " ".join(f"word{k}" for k in range(200))} for i in range(8)]
    s = _scripted(ws, db, long_turns, "bypass")
    ids.append(s.id)
    for i in range(8):
        s.send(f"question {i} " + "more " * 200)
    s.compact("the answers", on_event=o.on_event)
    s.close()
    # 3. a gated write: the run pauses, a wait with a short timeout says what it waits for
    turns = [
        {"tool_calls": [_tool("write_file", "w1", file_path="b.txt", content="new\n")]},
        {"content": "ok"},
    ]
    s = _scripted(ws, db, turns, "default")
    ids.append(s.id)
    o = output()
    o.start(s)
    result = s.send("write b", stream=True, on_event=o.on_event)
    result = s.wait(0.05, stream=True, on_event=o.on_event)
    o.finish(result, ["resume hint"])
    s.close()
    # 4. a sub-agent: its start, its tool calls and its end reach the parent's stream
    model = AgentsModel(
        scripts={
            "parent": [
                call("Task", {"description": "look", "prompt": "find alpha"}, "p1"),
                AIMessage("found"),
            ],
            "look": [call("grep", {"pattern": "alpha"}, "g1"), AIMessage("in a.txt")],
        }
    )
    s = _headless(Session(ws, model=model, db=db, mode="bypass"))
    ids.append(s.id)
    o = output()
    o.start(s)
    o.finish(s.send("find", on_event=o.on_event), [])
    s.close()
    return out.getvalue(), ids


def _normalized(text: str, ids: list[str], tmp: Path) -> str:
    for n, sid in enumerate(ids):
        text = text.replace(sid, f"<session {n}>")
    text = text.replace(str(tmp), "<tmp>")
    text = _SECONDS.sub("(N s)", text)
    return _VOLATILE.sub(lambda m: f'"{m.group(1)}": 0', text)


@pytest.mark.sqlite_only("the stream-json format does not depend on the store")
def test_stream_json_lines_are_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    text, ids = _runs(tmp_path)
    actual = _normalized(text, ids, tmp_path)
    if REGEN:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(actual)
    assert GOLDEN.exists(), "golden file missing: run with CAIRN_REGEN_GOLDEN=1"
    assert actual == GOLDEN.read_text(), "stream-json output changed; if intended, version and regenerate"
