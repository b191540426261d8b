"""Real MCP servers for the extension tests (``tests/support/mcp_server.py``, FastMCP)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def stdio_server(marks: Path, *extra: str) -> dict:
    """An ``mcpServers`` entry that starts the test server over stdio."""
    return {
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", "--marks", str(marks), *extra],
        "cwd": str(ROOT),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def marks(tmp_path) -> Path:
    path = tmp_path / "marks"
    path.mkdir()
    return path


def runs(marks: Path) -> list[str]:
    log = marks / "runs.log"
    return log.read_text().split() if log.exists() else []


def start_http_server(marks: Path, transport: str = "http") -> tuple[subprocess.Popen, str]:
    """The test server over streamable HTTP (or SSE) on 127.0.0.1; returns (process, URL)."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.support.mcp_server",
            "--transport",
            transport,
            "--port",
            str(port),
            "--marks",
            str(marks),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the MCP test server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("the MCP test server did not listen within 30 s")
    path = "/sse" if transport == "sse" else "/mcp"
    return proc, f"http://127.0.0.1:{port}{path}"


@pytest.fixture
def http_server(marks) -> Iterator[str]:
    proc, url = start_http_server(marks)
    try:
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
