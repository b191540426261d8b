"""Network by domain through the graph: rules grant it, a person grants it, a project cannot.

The "package index" is a server the test runs on 127.0.0.1, reached as ``index.test`` through
the user's ``[sandbox] network_hosts`` pin; no other address is ever a target.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.graph.session.decision_forms import DecisionError
from cairn.tools.shell.sandbox import detect_backend
from tests.support.hello_origin import FETCH, hello_server


@pytest.fixture
def origin() -> Iterator[int]:
    with hello_server() as port:
        yield port


@pytest.fixture
def ws(monkeypatch) -> Iterator[Path]:
    if not detect_backend("bwrap").available:
        pytest.skip("network grants need the bubblewrap backend")
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-net-graph-", dir="/var/tmp")))
    (base / "ws").mkdir()
    (base / "ws" / "fetch.py").write_text(FETCH)
    yield base / "ws"
    shutil.rmtree(base, ignore_errors=True)


def _user_settings(text: str) -> None:
    home = Path(os.environ["CAIRN_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text(text)


def _session(ws: Path, command: str) -> Session:
    turns = [
        {"tool_calls": [{"name": "bash", "args": {"command": command}, "id": "b1"}]},
        {"content": "done"},
    ]
    return Session(ws, model=ScriptedChatModel.from_turns(turns), db=":memory:")


def _call(session: Session):
    return next(c for c in session.tool_calls() if c.call_id == "b1")


PIN = '[sandbox]\nnetwork_hosts = { "index.test" = "127.0.0.1" }\n'


def _fetch(port: int) -> str:
    return f"python3 fetch.py http://index.test:{port}/"


def test_a_person_grants_network_to_one_call(ws: Path, origin: int) -> None:
    _user_settings(PIN)
    s = _session(ws, _fetch(origin))
    r = s.send("go")
    assert r.status == "awaiting_approval"
    r = s.approve("b1", network=["index.test"])
    assert r.status == "done"
    call = _call(s)
    assert "hello from the index" in call.result
    assert call.network == ["index.test"] and call.decision == "approved with network (index.test)"
    assert [(e["host"], e["allowed"]) for e in call.metadata["network"]] == [("index.test", True)]
    s.close()


def test_approved_without_network_the_same_call_is_refused(ws: Path, origin: int) -> None:
    _user_settings(PIN)
    s = _session(ws, _fetch(origin))
    s.send("go")
    r = s.approve("b1")
    assert r.status == "done"
    call = _call(s)
    assert "hello from the index" not in call.result and call.network is None
    assert "network" not in call.metadata  # no lane: the sandbox has no network at all


def test_an_allow_rule_with_domains_grants_them(ws: Path, origin: int) -> None:
    _user_settings('[permissions]\nallow = ["bash(python3 fetch.py:*; domain:index.test)"]\n' + PIN)
    s = _session(ws, _fetch(origin))
    r = s.send("go")
    assert r.status == "done"
    call = _call(s)
    assert call.network == ["index.test"] and "hello from the index" in call.result
    s.close()


def test_a_project_rule_cannot_grant_network(ws: Path, origin: int) -> None:
    _user_settings(PIN)
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text(
        '[permissions]\nallow = ["bash(python3 fetch.py:*; domain:index.test)"]\n'
    )
    s = _session(ws, _fetch(origin))
    r = s.send("go")
    assert r.status == "done"  # the project's rule still allows the command...
    call = _call(s)
    assert call.network is None and "hello from the index" not in call.result  # ...without network
    s.close()


def test_user_allowed_domains_reach_approved_commands_only(ws: Path, origin: int) -> None:
    _user_settings(PIN.replace("[sandbox]\n", '[sandbox]\nallowed_domains = ["index.test"]\n'))
    s = _session(ws, _fetch(origin))
    s.send("go")
    r = s.approve("b1")
    assert r.status == "done" and "hello from the index" in _call(s).result
    s.close()


def test_bad_network_answers_are_clear_errors(ws: Path, origin: int) -> None:
    s = _session(ws, _fetch(origin))
    s.send("go")
    with pytest.raises(ValueError):
        s.approve("b1", network="index.test")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        s.approve("b1", sandbox="off", network=["index.test"])
    with pytest.raises(DecisionError):
        s.approve("b1", network=["10.0.0.1"])
    assert s.pending()[0].call_id == "b1"  # nothing was lost
    s.close()


def test_a_package_manager_call_offers_its_registry(ws: Path) -> None:
    s = _session(ws, "pip download requests")
    r = s.send("go")
    assert r.status == "awaiting_approval"
    assert r.pending[0].network_offer == ["pypi.org", "files.pythonhosted.org"]
    assert r.pending[0].network is None  # offered, not granted
    s.close()
