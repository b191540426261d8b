"""Run one task through a cairn checkout headless, against a model server, and measure it.

``run_task(cairn, task, base_url, ...)`` makes a fresh workspace and HOME in a temp directory,
runs ``cairn -p PROMPT --output-format json --approval accept-edits``, approves every call a
pause asks about (``cairn resume ID --approve all -p``, counted as approvals asked), stops the
whole process group with SIGKILL at the deadline, then reads the session back (``cairn show
--last --json``) for the calls the model made and checks the task.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from tests.support.small_model_tasks import Task

AWAITING_APPROVAL = 3


def task_env(home: Path, base_url: str) -> dict[str, str]:
    """A clean environment: temp HOME and state, the endpoint, no cairn settings from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAIRN_", "OPENAI_", "XDG_"))}
    env.update(
        HOME=str(home),
        CAIRN_HOME=str(home / "state"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_STATE_HOME=str(home / ".local/state"),
        OPENAI_BASE_URL=base_url,
        OPENAI_API_KEY="not-needed",
        CAIRN_MODEL_TIMEOUT="900",
        NO_COLOR="1",
    )
    return env


def _run(cmd: list[str], env: dict[str, str], cwd: Path, deadline: float) -> tuple[int | None, str]:
    """Run until done or the deadline (then SIGKILL its process group); (exit code | None, stdout)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, ""


def _doc(out: str) -> dict[str, Any]:
    for line in reversed(out.strip().splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {}


def run_task(
    cairn: Path,
    task: Task,
    base_url: str,
    *,
    model: str,
    timeout: float,
    keep: Path | None = None,
    extra: list[str] | None = None,
) -> dict[str, Any]:
    """One task, start to check. ``cairn`` is the ``cairn`` executable of the checkout to measure."""
    with tempfile.TemporaryDirectory(prefix=f"cairn-{task.name}-") as tmp:
        root = Path(tmp)
        ws, home = root / "ws", root / "home"
        ws.mkdir()
        home.mkdir()
        task.setup(ws)
        env = task_env(home, base_url)
        common = ["--model", model, "--base-url", base_url, "--approval", "accept-edits", "-C", str(ws)]
        common += extra or []
        started = time.monotonic()
        deadline = started + timeout
        code, out = _run(
            [str(cairn), "-p", task.prompt, "--output-format", "json", *common], env, ws, deadline
        )
        doc, approvals, resumes = _doc(out), 0, 0
        while code == AWAITING_APPROVAL and doc.get("session_id") and time.monotonic() < deadline:
            approvals += len(doc.get("pending") or [])
            resumes += 1
            cmd = [
                str(cairn),
                "resume",
                doc["session_id"],
                "--approve",
                "all",
                "-p",
                "--output-format",
                "json",
            ]
            code, out = _run([*cmd, *common], env, ws, deadline)
            doc = _doc(out) or doc
        wall = time.monotonic() - started
        status = "timeout" if code is None else (doc.get("status") or f"exit {code}")
        session = _show(cairn, env, ws, doc.get("session_id"))
        answer = doc.get("result") or _last_answer(session)
        calls = [
            (c["name"], json.dumps(c.get("args") or {}, sort_keys=True))
            for m in session.get("messages") or []
            for c in m.get("tool_calls") or []
        ]
        repeats = Counter(calls).most_common(1)
        result = {
            "task": task.name,
            "finished": bool(task.check(ws, answer or "")),
            "status": status,
            "wall_s": round(wall, 1),
            "tool_calls": len(calls),
            "max_identical_calls": repeats[0][1] if repeats else 0,
            "most_repeated": repeats[0][0][0] if repeats else None,
            "approvals_asked": approvals,
            "resumes": resumes,
            "answer": (answer or "")[:300],
        }
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"{task.name}.session.json").write_text(json.dumps(session, indent=1, default=str))
        return result


def _show(cairn: Path, env: dict[str, str], ws: Path, session_id: str | None) -> dict[str, Any]:
    """The session as ``cairn show ID --json`` prints it (the id from ``cairn sessions`` if the
    run was killed before it printed one; older checkouts have no ``show --last``)."""

    def cli(*args: str) -> str:
        proc = subprocess.run(
            [str(cairn), *args, "-C", str(ws)], env=env, cwd=ws, capture_output=True, text=True, timeout=120
        )
        return proc.stdout if proc.returncode == 0 else ""

    if not session_id:
        rows = json.loads(cli("sessions", "--json") or "[]")
        session_id = rows[0].get("session_id") if rows else None
    out = cli("show", session_id, "--json") if session_id else ""
    return json.loads(out) if out.strip() else {}


def _last_answer(session: dict[str, Any]) -> str:
    for message in reversed(session.get("messages") or []):
        if message.get("role") == "assistant" and not message.get("tool_calls"):
            return message.get("content") or ""
    return ""
