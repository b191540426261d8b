"""Helpers for driving the real ``cairn`` command: subprocesses, a pty, scripts, the test server."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import make_openai_server  # noqa: F401  (fixture)

REPO = Path(__file__).resolve().parents[2]


def cairn_cmd() -> list[str]:
    """The console script when installed next to this interpreter, else ``python -m cairn.graph.apps.cli``."""
    script = Path(sys.executable).parent / "cairn"
    return [str(script)] if script.exists() else [sys.executable, "-m", "cairn.graph.apps.cli"]


@pytest.fixture
def cli_env(request, tmp_path) -> dict[str, str]:
    """The environment for a cairn subprocess: isolated state, no key, no colors by default.

    The database is the test's ``db_location`` when it runs on both backends, else a file."""
    env = dict(os.environ)
    env["CAIRN_HOME"] = os.environ["CAIRN_HOME"]
    if "db_location" in request.fixturenames:
        env["CAIRN_DB"] = request.getfixturevalue("db_location")
    else:
        env["CAIRN_DB"] = str(tmp_path / "cairn.db")
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    env.pop("CAIRN_MODEL", None)
    env.pop("VISUAL", None)
    env.pop("EDITOR", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(REPO)) if p)
    return env


@pytest.fixture
def run_cairn(cli_env, workspace):
    """``run_cairn(*args, input=None, env=None)`` → CompletedProcess (text), cwd = the workspace."""

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None, timeout: float = 60):
        return subprocess.run(
            [*cairn_cmd(), *args],
            cwd=workspace,
            env={**cli_env, **(env or {})},
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


@pytest.fixture
def script(tmp_path):
    """``script(turns)`` → ``script:PATH`` spec of a scripted model replaying ``turns``."""
    counter = iter(range(1000))

    def write(turns: list[Any]) -> str:
        path = tmp_path / f"script{next(counter)}.json"
        path.write_text(json.dumps({"turns": turns}))
        return f"script:{path}"

    return write


def call(name: str, cid: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": cid}


def last_json_line(text: str) -> dict[str, Any]:
    return json.loads(text.strip().splitlines()[-1])


@pytest.fixture
def pty_cairn(cli_env, workspace):
    """``pty_cairn(*args, cols=200, rows=50, color=False, env={})`` → ``cairn`` in a real
    pseudo-terminal (a pexpect child, its output also in ``child.logfile_read``)."""
    import pexpect

    children: list[Any] = []

    def start(*args: str, cols: int = 200, rows: int = 50, color: bool = False, env: dict | None = None):
        full = cli_env | {"TERM": "xterm-256color"} | (env or {})
        full.pop("NO_COLOR", None)
        if not color:
            full["NO_COLOR"] = "1"
        cmd = cairn_cmd()
        child = pexpect.spawn(
            cmd[0],
            [*cmd[1:], *args],
            cwd=workspace,
            env=full,
            encoding="utf-8",
            dimensions=(rows, cols),
            timeout=30,
        )
        child.logfile_read = io.StringIO()
        children.append(child)
        return child

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)
