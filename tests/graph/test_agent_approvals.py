"""A sub-agent's gated call bubbles up to the parent: shown in its pending list, decided there,
applied by the child (sync: the parent's run pauses; background: at the parent's next pause)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cairn import Session, SessionError
from cairn.graph.display.parts import approval_html, approval_markdown
from tests.graph.agent_model import AgentsModel, call


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "home"))
    path = tmp_path / "ws"
    path.mkdir()
    return path


def writer(description: str, mode: str) -> dict:
    return {"description": description, "prompt": "make the file", "mode": mode, "read_only": False}


def touch(name: str, call_id: str) -> AIMessage:
    return call("bash", {"command": f"touch {name}"}, call_id)


def start(session: Session):
    """Send the task and approve the parent's own ``agent`` call (it asks: MEDIUM risk)."""
    first = session.send("go")
    assert [(c.call_id, c.tool_name) for c in first.pending] == [("p1", "agent")]
    result = session.approve("p1")
    assert result.status == "awaiting_approval", result
    return result


def reports(session: Session) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in session.history() if isinstance(m, ToolMessage)}


def test_sync_child_call_pauses_the_parent_and_the_parents_decision_reaches_the_child(
    ws, tmp_path, db_location
):
    model = AgentsModel(
        scripts={
            "parent": [call("agent", writer("kid", "sync"), "p1"), AIMessage("parent done")],
            "kid": [touch("made.txt", "c1"), AIMessage("made it")],
        }
    )
    s = Session(ws, model=model, db=db_location)
    first = start(s)
    [ask] = first.pending
    assert (ask.call_id, ask.tool_name, ask.agent, ask.agent_id) == ("p1/c1", "bash", "kid", f"{s.id}-sub-p1")
    assert ask.arguments == {"command": "touch made.txt"}
    assert [c.call_id for c in s.pending()] == ["p1/c1"]
    assert "sub-agent: kid" in approval_html(ask) and "sub-agent: kid" in approval_markdown(ask)
    with pytest.raises(SessionError, match="p1/c1"):
        s.send("something else")
    assert not (ws / "made.txt").exists()
    assert s.store.sessions.get(f"{s.id}-sub-p1").status == "awaiting_approval"

    done = s.approve("p1/c1")
    assert done.status == "done", done.error
    assert done.text == "parent done"
    assert (ws / "made.txt").exists()
    assert "made it" in reports(s)["p1"].content
    child = s.store.sessions.get(f"{s.id}-sub-p1")
    assert child.status == "done"
    assert s.store.decisions.load(child.session_id, ["c1"]) == {}  # applied, then cleared
    s.close()


def test_rejecting_a_sync_childs_call_tells_the_child(ws, tmp_path, db_location):
    model = AgentsModel(
        scripts={
            "parent": [call("agent", writer("kid", "sync"), "p1"), AIMessage("parent done")],
            "kid": [touch("made.txt", "c1"), AIMessage("could not make it")],
        }
    )
    s = Session(ws, model=model, db=db_location)
    start(s)
    done = s.reject("p1/c1", "not now")
    assert done.status == "done"
    assert not (ws / "made.txt").exists()
    child = Session.resume(f"{s.id}-sub-p1", db=db_location, model=model)
    [rejected] = [m for m in child.history() if isinstance(m, ToolMessage)]
    assert "not now" in rejected.content
    assert "could not make it" in reports(s)["p1"].content
    child.close()
    s.close()


def test_decision_recorded_in_another_process_resumes_a_new_parent_process(ws, tmp_path, db_location):
    """Headless: the parent's process ends at the pause; a later process decides and continues."""
    db = db_location
    scripts = {
        "parent": [call("agent", writer("kid", "sync"), "p1"), AIMessage("parent done")],
        "kid": [touch("made.txt", "c1"), AIMessage("made it")],
    }
    s = Session(ws, model=AgentsModel(scripts=scripts), db=db)
    start(s)
    sid = s.id
    s.close()
    again = Session.resume(sid, db=db, model=AgentsModel(scripts=scripts))
    assert [c.call_id for c in again.pending()] == ["p1/c1"]
    assert again.approve("all").status == "done"
    assert (ws / "made.txt").exists()
    again.close()


def test_background_childs_call_reaches_the_parent_at_its_next_pause(ws, tmp_path, db_location):
    model = AgentsModel(
        scripts={
            "parent": [
                call("agent", writer("bg", "background"), "p1"),
                AIMessage("started it"),
                AIMessage("got the report"),
            ],
            "bg": [touch("bg.txt", "c1"), AIMessage("bg made it")],
        }
    )
    s = Session(ws, model=model, db=db_location)
    paused = start(s)
    assert paused.status == "awaiting_approval", paused
    assert paused.text == "started it"
    [ask] = paused.pending
    assert (ask.call_id, ask.agent) == ("p1/c1", "bg")
    assert not (ws / "bg.txt").exists()

    done = s.approve("p1/c1")
    assert done.status == "done", done.error
    assert done.text == "got the report"
    assert (ws / "bg.txt").exists()
    notes = [
        m for m in s.history() if isinstance(m, HumanMessage) and "background sub-agent" in str(m.content)
    ]
    assert len(notes) == 1 and "bg made it" in str(notes[0].content)
    s.close()
