"""SIGKILL while an MCP call runs: the call comes back ``interrupted`` and never runs again by itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from cairn.checkpoints import open_store
from tests.extensions.conftest import runs, stdio_server

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def test_kill_during_an_mcp_call_leaves_it_interrupted(tmp_path, marks, db_location):
    ws = tmp_path / "ws"
    ws.mkdir()
    db = db_location
    script = tmp_path / "script.json"
    turns = [
        {"tool_calls": [{"name": "mcp__t__effect", "args": {"label": "slow", "seconds": 60}, "id": "m1"}]},
        {"content": "after"},
    ]
    script.write_text(json.dumps({"turns": turns}))
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"t": stdio_server(marks)}}))
    base = [
        sys.executable,
        "-m",
        "tests.support.kill_driver",
        "--db",
        db,
        "--workspace",
        str(ws),
        "--script",
        str(script),
        "--marks",
        str(marks),
        "--mcp-config",
        str(config),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def run(*action: str) -> dict:
        out = subprocess.run([*base, *action], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")][-1]

    first = run("--send", "go")
    assert first["status"] == "awaiting_approval"  # an MCP tool is MEDIUM: it asks
    sid = first["session_id"]

    proc = subprocess.Popen(
        [*base, "--session", sid, "--approve"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = marks / "started-slow"
    deadline = time.monotonic() + 60
    while not started.exists():
        assert proc.poll() is None, "the driver exited before the MCP call started"
        assert time.monotonic() < deadline, "the MCP call never started"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    server_pid = int(started.read_text())
    try:
        os.kill(server_pid, signal.SIGKILL)  # the orphaned test server, still sleeping in the call
    except ProcessLookupError:
        pass

    resumed = run("--session", sid, "--continue")
    assert resumed["status"] == "interrupted"
    assert [c["call_id"] for c in resumed["pending"]] == ["m1"]
    again = run("--session", sid, "--continue")
    assert again["status"] == "interrupted"
    assert runs(marks) == ["slow"], "the MCP call ran again without anyone asking"

    # Only an explicit retry runs it again.
    (marks / "fast").write_text("")
    retried = run("--session", sid, "--retry")
    assert retried["status"] == "done" and retried["result"] == "after"
    assert runs(marks) == ["slow", "slow"]
    store = open_store(str(db))
    try:
        entry = {e.call_id: e for e in store.journal.entries(sid)}["m1"]
        assert entry.status == "success"
        tup = store.saver.get_tuple({"configurable": {"thread_id": sid}})
        messages = store.transcript.read(sid, tup.checkpoint["channel_values"].get("head"))
        calls = [tc["id"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls]
        answers = [m.tool_call_id for m in messages if isinstance(m, ToolMessage)]
        assert calls == answers == ["m1"]
    finally:
        store.close()
