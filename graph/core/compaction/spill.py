"""Big tool outputs: stored whole in a file, the model gets the head, the tail and a pointer.

The file lives under the state directory (beside the database), one directory per session, so
it is outside the workspace; the session's rules allow ``read_file`` (and ``grep``) there
without asking (see ``spill_rules``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from cairn.atomic import atomic_write
from cairn.checkpoints.location import state_dir

HEAD_CHARS = 6_000
TAIL_CHARS = 3_000
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def spill_dir(db_location: str, session_id: str) -> Path:
    """``<db dir>/outputs/<session>`` for a database file, else under the user state dir."""
    if db_location and db_location != ":memory:" and "://" not in db_location:
        base = Path(db_location).expanduser().resolve().parent
    else:
        base = state_dir()
    return Path(os.path.realpath(base / "outputs" / _SAFE.sub("_", session_id)))


def spill_rules(directory: Path) -> tuple[str, ...]:
    """Allow rules that let the model read its stored outputs (read_file covers grep too)."""
    return (f"read_file({directory}/**)",)


def spill(text: str, limit_bytes: int, directory: Path | None, call_id: str, tool_name: str) -> str:
    """``text`` itself when small enough, else head + tail + where the whole output is."""
    size = len(text.encode("utf-8", errors="replace"))
    if directory is None or size <= limit_bytes:
        return text
    try:
        path = directory / f"{_SAFE.sub('_', call_id)}.txt"
        atomic_write(path, text.encode("utf-8", errors="replace"), durable=False)  # a copy: no fsync
    except OSError:
        return text  # the tool's own truncation still applies
    lines = text.count("\n") + 1
    head, tail = text[:HEAD_CHARS], text[-TAIL_CHARS:]
    head_lines = head.count("\n")
    tail_start = lines - tail.count("\n")
    return (
        f"{head}\n\n[... {tool_name} output of {size:,} bytes / {lines:,} lines: it is saved whole at "
        f"{path} — lines {head_lines + 1}-{tail_start - 1} are not shown here. Read them with "
        f"read_file(file_path='{path}', offset=N, limit=M) or search with grep(path='{path}'). ...]\n\n{tail}"
    )


def bound_output(text: str, call: object, budget: object | None) -> str:
    """Apply ``spill`` with the session's budget (no budget: unchanged).

    Reading a stored output back never spills again (the model asked for that slice).
    """
    directory = getattr(budget, "spill_dir", None)
    if budget is None or directory is None:
        return text
    args = getattr(call, "arguments", {}) or {}
    target = str(args.get("file_path") or args.get("path") or "")
    if target.startswith(str(directory)):
        return text
    limit = int(getattr(budget, "spill_bytes", 20_000))
    return spill(
        text, limit, directory, str(getattr(call, "call_id", "call")), str(getattr(call, "tool_name", "tool"))
    )
