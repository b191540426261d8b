"""MCP tools through the whole graph: real FastMCP servers over stdio and streamable HTTP."""

from __future__ import annotations

import threading
import time

import pytest

from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel
from tests.extensions.conftest import runs, start_http_server, stdio_server

pytestmark = pytest.mark.slow  # every test starts a real MCP server process


def call(name: str, args: dict, cid: str) -> dict:
    return {"name": name, "args": args, "id": cid}


def session(ws, turns, **kwargs) -> Session:
    """A scripted session; deferral is off here (tests/extensions/test_deferred.py covers it)."""
    kwargs.setdefault("defer_threshold", 100)
    return Session(ws, model=ScriptedChatModel.from_turns(turns), db=":memory:", **kwargs)


@pytest.mark.smoke
def test_stdio_tools_run_with_policy_approval_and_journal(workspace, marks):
    turns = [
        {
            "tool_calls": [
                call("mcp__t__echo", {"text": "hi"}, "e1"),
                call("mcp__t__add", {"a": 2, "b": 3}, "a1"),
            ]
        },
        {"content": "done"},
    ]
    s = session(workspace, turns, mcp_servers={"t": stdio_server(marks)})
    try:
        r = s.send("use the tools")
        # echo has readOnlyHint: LOW, it ran; add is MEDIUM: it waits for the person.
        assert r.status == "awaiting_approval"
        assert [c.tool_name for c in r.pending] == ["mcp__t__add"]
        assert r.pending[0].risk == "MEDIUM"
        echo = next(c for c in s.tool_calls() if c.call_id == "e1")
        assert echo.status == "success" and echo.result == "echo: hi" and echo.risk == "LOW"
        r = s.approve()
        assert r.status == "done" and r.text == "done"
        by_id = {c.call_id: c for c in s.tool_calls()}
        assert by_id["a1"].status == "success" and by_id["a1"].result == "5"
        # The journal holds both results (what a restarted process adopts).
        journal = s.store.journal.get_many(s.id, ["e1", "a1"])
        assert {k: v.status for k, v in journal.items()} == {"e1": "success", "a1": "success"}
        status = {srv["name"]: srv for srv in s.mcp_status()}
        assert status["t"]["status"] == "running" and "effect" in status["t"]["tools"]
    finally:
        s.close()
    assert s.extensions.manager.servers["t"].status == "stopped"


def test_streamable_http_server_and_wildcard_rules(workspace, marks, http_server):
    turns = [
        {
            "tool_calls": [
                call("mcp__web__add", {"a": 40, "b": 2}, "a1"),
                call("mcp__web__fail", {"reason": "x"}, "f1"),
            ]
        },
        {"tool_calls": [call("mcp__web__effect", {"label": "denied"}, "d1")]},
        {"content": "ok"},
    ]
    rules = {"allow": ["mcp__web__*"], "deny": ["mcp__web__effect"]}
    s = session(workspace, turns, mcp_servers={"web": {"url": http_server}}, rules=rules)
    try:
        r = s.send("go")
        assert r.status == "done"
        by_id = {c.call_id: c for c in s.tool_calls()}
        assert by_id["a1"].status == "success" and by_id["a1"].result == "42"
        assert by_id["f1"].status == "error" and "x" in (by_id["f1"].error_msg or "")
        assert by_id["d1"].status == "cancelled" and "denied by rule" in (by_id["d1"].error_msg or "")
        assert runs(marks) == []  # the denied effect never reached the server
        assert s.mcp_status()[0]["transport"] == "streamable_http"
    finally:
        s.close()


def test_sse_transport(workspace, marks):
    proc, url = start_http_server(marks, "sse")
    try:
        s = session(
            workspace,
            [{"tool_calls": [call("mcp__old__echo", {"text": "sse"}, "e1")]}, {"content": "ok"}],
            mcp_servers={"old": {"type": "sse", "url": url}},
        )
        r = s.send("go")
        assert r.status == "done"
        assert s.tool_calls()[0].result == "echo: sse"
        s.close()
    finally:
        proc.kill()
        proc.wait(10)


def test_tool_risk_setting_and_read_only_hint(workspace, marks):
    import pathlib

    cfg = pathlib.Path(workspace) / ".cairn"
    cfg.mkdir()
    (cfg / "settings.toml").write_text('[tool_risk]\nmcp__t__echo = "HIGH"\nmcp__t__add = "LOW"\n')
    turns = [
        {
            "tool_calls": [
                call("mcp__t__echo", {"text": "x"}, "e1"),
                call("mcp__t__add", {"a": 1, "b": 1}, "a1"),
            ]
        },
        {"content": "ok"},
    ]
    s = session(workspace, turns, mcp_servers={"t": stdio_server(marks)})
    try:
        r = s.send("go")
        assert r.status == "awaiting_approval"
        assert [(c.tool_name, c.risk) for c in r.pending] == [("mcp__t__echo", "HIGH")]
        added = next(c for c in s.tool_calls() if c.call_id == "a1")
        assert added.status == "success" and added.risk == "LOW"
    finally:
        s.close()


def test_server_crash_mid_session_is_reported_once_and_the_session_goes_on(workspace, marks):
    turns = [
        {"tool_calls": [call("mcp__t__crash", {}, "c1")]},
        {"tool_calls": [call("mcp__t__echo", {"text": "still there?"}, "e1")]},
        {"tool_calls": [call("mcp__t__echo", {"text": "again"}, "e2")]},
        {"content": "the server is gone"},
    ]
    notices: list[str] = []
    s = session(workspace, turns, mcp_servers={"t": stdio_server(marks)}, rules={"allow": ["mcp__t__*"]})
    s.extensions.on_notice = notices.append
    try:
        started = time.monotonic()
        r = s.send("go")
        assert time.monotonic() - started < 20  # nothing hangs on the dead server
        assert r.status == "done" and r.text == "the server is gone"
        by_id = {c.call_id: c for c in s.tool_calls()}
        assert by_id["c1"].status == "error" and "stopped" in by_id["c1"].error_msg
        for cid in ("e1", "e2"):
            assert by_id[cid].status == "error"
            assert "MCP server 't' is unavailable" in by_id[cid].error_msg
        assert len(notices) == 1 and "'t'" in notices[0]
        assert s.mcp_status()[0]["status"] == "failed"
    finally:
        s.close()


def test_a_server_that_cannot_start_is_reported_and_the_session_works(workspace, tmp_path):
    notices: list[str] = []
    bad = {"command": str(tmp_path / "no-such-server")}
    s = Session(
        workspace,
        model=ScriptedChatModel.from_turns([{"content": "fine"}]),
        db=":memory:",
        mcp_servers={"broken": bad},
    )
    s.extensions.on_notice = notices.append
    try:
        assert s.send("hello").status == "done"
        status = s.mcp_status()[0]
        assert status["status"] == "failed" and status["error"]
        assert len(s.extensions.notices) == 1 and "broken" in s.extensions.notices[0]
    finally:
        s.close()


def test_ctrl_c_cancels_a_running_mcp_call(workspace, marks):
    turns = [
        {"tool_calls": [call("mcp__t__effect", {"label": "slow", "seconds": 30}, "s1")]},
        {"content": "x"},
    ]
    s = session(workspace, turns, mcp_servers={"t": stdio_server(marks)}, mode="bypass")
    try:

        def stop_when_started() -> None:
            deadline = time.monotonic() + 30
            while not (marks / "started-slow").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            s.stop()

        threading.Thread(target=stop_when_started, daemon=True).start()
        started = time.monotonic()
        r = s.send("go")
        assert time.monotonic() - started < 20
        assert r.status == "interrupted"
        assert r.pending[0].call_id == "s1" and r.pending[0].status == "interrupted"
        assert runs(marks) == ["slow"]
    finally:
        s.close()


@pytest.mark.parametrize("transport", ["stdio"])
def test_servers_stop_on_close(workspace, marks, transport):
    started = marks / "pids"
    s = session(
        workspace, [{"content": "x"}], mcp_servers={"t": stdio_server(marks, "--started", str(started))}
    )
    s.send("hi")
    pid = int(started.read_text().split()[0])
    s.close()
    import psutil

    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the MCP server outlived its session"
        time.sleep(0.05)
