"""``Session`` is a small facade (issue 29): collaborators it owns, no mixins, aliases that work."""

from __future__ import annotations

import inspect

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.graph.session.alias import Alias, aliases
from cairn.graph.session.approvals import Approvals
from cairn.graph.session.builder import SessionOptions
from cairn.graph.session.core import SessionCore
from cairn.graph.session.rewind_control import Rewinds
from cairn.graph.session.runner import Runner
from cairn.graph.session.waiting import Waiting

MAX_PUBLIC_MEMBERS = 25
#: The Session API the README, docs/ and notebooks show (``s.NAME``, ``Session.NAME``).
DOCUMENTED = [
    "send",
    "continue_",
    "asend",
    "acontinue",
    "stop",
    "pending",
    "tool_calls",
    "history",
    "compact",
    "checkpoints",
    "state",
    "status",
    "set_mode",
    "tasks",
    "approve",
    "reject",
    "edit",
    "retry",
    "cancel",
    "decide",
    "rewind",
    "redo",
    "undo_call",
    "undo_problem",
    "rewind_points",
    "wait",
    "record_decisions",
    "mcp_status",
    "project_mcp_pending",
    "approve_project_mcp",
    "sandbox_report",
    "context_window",
    "rules",
    "close",
    "resume",
    "list",
    "mode",
    "recovered",
]


def public_members(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


@pytest.fixture
def session(tmp_path, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    s = Session(ws, model=ScriptedChatModel.from_turns([{"content": "hi"}]), db=db_location)
    yield s
    s.close()


def test_at_most_25_public_members_aliases_aside():
    own = public_members(Session) - aliases(Session)
    assert len(own) <= MAX_PUBLIC_MEMBERS, sorted(own)


def test_no_mixins():
    assert Session.__mro__ == (Session, object)


def test_the_documented_api_is_there():
    missing = [name for name in DOCUMENTED if not hasattr(Session, name)]
    assert missing == []


def test_collaborators_are_owned_and_share_one_core(session):
    core = session.core
    assert isinstance(core, SessionCore)
    assert isinstance(session.runs, Runner) and session.runs.core is core
    assert isinstance(session.approvals, Approvals) and session.approvals.core is core
    assert isinstance(session.waiting, Waiting) and session.waiting.core is core
    assert isinstance(session.rewinds, Rewinds) and session.rewinds.core is core
    assert session.extensions is core.extensions and session.subagents is core.subagents
    assert session.subagents.parent is core and session.subagents.session_class is Session
    assert (session.id, session.store, session.workspace) == (core.id, core.store, core.workspace)


def test_aliases_reach_the_collaborators(session):
    assert session.redo == session.rewinds.redo
    assert session.rewind_points == session.rewinds.points
    assert session.record_decisions == session.approvals.record
    assert session.wait == session.waiting.wait
    assert session.mcp_status == session.extensions.status
    assert session.recovered is session.rewinds.recovered
    assert isinstance(vars(Session)["redo"], Alias)


def test_mode_alias_reads_and_writes_the_core(session):
    session.set_mode("plan")
    assert session.mode == session.core.mode == "plan"
    assert session.store.sessions.get(session.id).mode == "plan"
    session.mode = "default"
    assert session.core.mode == "default"


def test_a_read_only_alias_refuses_assignment(session):
    with pytest.raises(AttributeError, match=r"alias of session\.rewinds\.redo"):
        session.redo = None


def test_an_unknown_option_is_refused(tmp_path):
    with pytest.raises(TypeError, match="no_such_option"):
        Session(tmp_path, no_such_option=1)


def test_options_have_one_home():
    """Every ``SessionOptions`` field is a keyword of ``Session(...)``; nothing else is."""
    fields = set(SessionOptions.__dataclass_fields__)
    assert {"model", "db", "mode", "tools", "mcp_servers", "_store"} <= fields
    params = inspect.signature(Session.__init__).parameters
    assert set(params) == {"self", "workspace", "options"}


def test_a_run_goes_through_the_facade(session):
    result = session.send("hello")
    assert result.status == "done" and result.text == "hi"
    assert session.status == "done" and session.pending() == []
