"""Background tasks a person kept running when they left cairn, remembered per workspace.

``Session.close(keep_background=True)`` hands each running task's output to a log file under
the state directory (``$CAIRN_HOME/tasks/``) and records it in ``tasks/kept.json``; the next
session of the same workspace lists them (``/tasks``) with whether they still run and where
their log is. The record is small and pruned of tasks that ended more than a day ago.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from cairn.atomic import atomic_write

KEEP_ENDED_S = 24 * 3600


def tasks_dir() -> Path:
    from cairn.checkpoints.location import state_dir

    return state_dir() / "tasks"


def _index() -> Path:
    return tasks_dir() / "kept.json"


def _read() -> list[dict[str, Any]]:
    try:
        data = json.loads(_index().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []


def alive(pid: int, started_at: float) -> bool:
    """The process still runs (and is the one started then, not a reused pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie or a reused pid does not count (Linux: /proc/PID/stat)
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        if stat[0] == "Z":
            return False
        ticks = os.sysconf("SC_CLK_TCK")
        boot = time.time() - float(Path("/proc/uptime").read_text().split()[0])
        return abs(boot + int(stat[19]) / ticks - started_at) < 5
    except (OSError, IndexError, ValueError):
        return True


def record(workspace: str, session_id: str, kept: list[tuple[Any, str]]) -> None:
    """Remember ``kept`` (``(TaskInfo, log path)`` pairs) for the next session of ``workspace``."""
    if not kept:
        return
    now = time.time()
    entries = [
        e
        for e in _read()
        if alive(e.get("pid", 0), e.get("started_at", 0)) or now - e.get("kept_at", 0) < KEEP_ENDED_S
    ]
    for info, log in kept:
        entries.append(
            {
                "workspace": workspace,
                "session_id": session_id,
                "task_id": info.task_id,
                "pid": info.pid,
                "command": info.command,
                "description": info.description,
                "started_at": info.started_at,
                "kept_at": now,
                "log": log,
            }
        )
    atomic_write(_index(), json.dumps(entries, indent=1))


def listed(workspace: str) -> list[dict[str, Any]]:
    """Tasks kept from earlier sessions of ``workspace``, each with ``status`` running or ended."""
    out = []
    for entry in _read():
        if entry.get("workspace") != workspace:
            continue
        running = alive(int(entry.get("pid", 0)), float(entry.get("started_at", 0)))
        out.append({**entry, "status": "running" if running else "ended"})
    return out
