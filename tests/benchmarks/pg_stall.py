"""What a stalled load run was doing: worker stacks (py-spy) and the server's view of them.

``bench_pg_load.py`` calls ``diagnose`` when no side effect has happened for a while, writes
the text to a file, and ends the repeat as stalled instead of waiting forever.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ACTIVITY = """
SELECT a.pid, a.application_name, a.state, a.wait_event_type, a.wait_event,
       now() - a.xact_start AS in_xact, now() - a.state_change AS in_state, left(a.query, 160)
FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
ORDER BY a.xact_start NULLS LAST
"""

WAITING = """
SELECT w.pid, w.locktype, w.mode, w.classid, w.objid, h.pid AS held_by
FROM pg_locks w JOIN pg_locks h ON h.granted AND NOT w.granted
  AND h.locktype = w.locktype AND h.database IS NOT DISTINCT FROM w.database
  AND h.relation IS NOT DISTINCT FROM w.relation AND h.classid IS NOT DISTINCT FROM w.classid
  AND h.objid IS NOT DISTINCT FROM w.objid AND h.transactionid IS NOT DISTINCT FROM w.transactionid
"""


def _py_spy() -> str | None:
    beside = Path(sys.executable).parent / "py-spy"
    return str(beside) if beside.exists() else shutil.which("py-spy")


def diagnose(pids: list[int], db: str) -> str:
    import psycopg

    out: list[str] = []
    spy = _py_spy()
    for pid in pids:
        out.append(f"=== worker pid {pid}")
        if spy is None:
            out.append("(py-spy is not installed: pip install py-spy)")
            continue
        done = subprocess.run(
            [spy, "dump", "--locals", "--pid", str(pid)], capture_output=True, text=True, timeout=60
        )
        out.append(done.stdout + done.stderr)
    try:
        with psycopg.connect(db, autocommit=True, connect_timeout=10) as conn:
            out.append("=== pg_stat_activity")
            out += ["\t".join(str(c) for c in row) for row in conn.execute(ACTIVITY).fetchall()]
            out.append("=== lock waits (waiter, type, mode, classid, objid, holder)")
            out += ["\t".join(str(c) for c in row) for row in conn.execute(WAITING).fetchall()]
    except psycopg.Error as exc:
        out.append(f"(server view unavailable: {exc})")
    return "\n".join(out)
