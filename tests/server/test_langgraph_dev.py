"""Optional: ``langgraph dev`` serves cairn's graph; one approval round trip over the Agent Protocol.

Needs ``pip install -e '.[server]'`` (langgraph-cli[inmem], langgraph-sdk); skipped otherwise.
The server runs on 127.0.0.1 with a scripted model, so no network is used.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
LANGGRAPH = Path(sys.executable).parent / "langgraph"
MISSING = [
    m for m in ("langgraph_api", "langgraph_sdk", "langgraph_cli") if importlib.util.find_spec(m) is None
]
TURNS = [
    {
        "content": "",
        "tool_calls": [
            {"name": "write_file", "args": {"file_path": "notes.txt", "content": "hi\n"}, "id": "w1"}
        ],
    },
    {"content": "wrote it"},
]


@pytest.mark.skipif(
    bool(MISSING) or not (LANGGRAPH.exists() or shutil.which("langgraph")),
    reason=f"langgraph-cli[inmem] is not installed (missing: {', '.join(MISSING) or 'the langgraph command'}); "
    "pip install -e '.[server]' to run it",
)
def test_langgraph_dev_approval_round_trip(tmp_path, workspace):
    from langgraph_sdk import get_sync_client

    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": TURNS}))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "CAIRN_WORKSPACE": workspace,
        "CAIRN_MODEL": f"script:{script}",
        "CAIRN_DB": str(tmp_path / "cairn.db"),
        "LANGGRAPH_NO_BROWSER": "1",
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
    }
    command = str(LANGGRAPH) if LANGGRAPH.exists() else shutil.which("langgraph")
    log = open(tmp_path / "server.log", "w")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        [
            command,
            "dev",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-browser",
            "--no-reload",
            "--config",
            str(ROOT / "langgraph.json"),
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        client = get_sync_client(url=f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            try:
                client.assistants.search(graph_id="cairn")
                break
            except Exception:
                assert proc.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "langgraph dev did not come up"
                time.sleep(0.5)
        thread = client.threads.create()
        client.runs.wait(thread["thread_id"], "cairn", input={"prompt": "write notes"})
        state = client.threads.get_state(thread["thread_id"])
        [task] = [t for t in state["tasks"] if t.get("interrupts")]
        assert task["interrupts"][0]["value"]["calls"][0]["call_id"] == "w1"
        assert not (Path(workspace) / "notes.txt").exists()
        out = client.runs.wait(
            thread["thread_id"], "cairn", command={"resume": {"decisions": {"w1": {"action": "approve"}}}}
        )
        assert out["reply"] == "wrote it", out
        assert (Path(workspace) / "notes.txt").read_text() == "hi\n"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
