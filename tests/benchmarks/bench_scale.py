"""Cost at scale: harness time per tool cycle and DB size up to 5,000 turns, resume, ``cairn show``.

    .venv/bin/python tests/benchmarks/bench_scale.py [--turns 10,500,2000,5000] [--sessions 1] [--keep DIR]
                                                     [--show-only]

One session runs ``max(turns)`` tool cycles (an AIMessage with one tool call, then a 2 KB
ToolMessage; model and tool answer at once, as in ``bench_graph.py``).  Printed:

- harness time per cycle (median of the 101 cycles around each turn, the first 101 for turn 10) and the DB size there, with
  the growth against turn 10 (same run: the baseline is the session's own early cycles); with
  ``--sessions K``, the median over K sessions of those medians, and each session's value;
- resume latency in a fresh process: ``Session.resume`` + ``send`` until the model is called
  (median of 5), for a copy of the session at 500 turns and at the largest size;
- ``cairn show`` of the largest session (text and ``--json``; wall and the child's CPU, medians
  of 5 interleaved runs) beside ``python -c pass``, with the load average.

``--keep DIR`` keeps (and reuses) the databases, which is handy while profiling.
``--show-only`` only times ``cairn show`` (building the largest session first unless
``--keep DIR`` already holds it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import bench_graph as bg  # noqa: E402

REPEATS = 5

RESUME_CHILD = r"""
import sys, time, json
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
from cairn import Session
import cairn.graph.session.session, cairn.graph.build, cairn.graph.models, cairn.policy, cairn.checkpoints, cairn.tools
from langchain_openai import ChatOpenAI  # what a real run imports too
cairn.tools.builtin_tool_classes()
import bench_graph as b
from cairn.tools.workspace import Workspace

class Probe(b.InstantModel):
    def invoke(self, messages, *a, **kw):
        if not stamps:
            stamps.append((time.perf_counter(), len(messages)))
        return super().invoke(messages, *a, **kw)

stamps = []
w = Workspace({ws!r})
t0 = time.perf_counter()
s = Session.resume({sid!r}, db={db!r}, model=Probe([{{"content": "done"}}]), tools=[b.BlobTool(w), b.GateTool(w)])
s.send("one more thing")
print(json.dumps({{"first_call_ms": (stamps[0][0] - t0) * 1000, "messages": stamps[0][1]}}))
"""


def run_session(n: int, tmp: Path) -> dict:
    """One session of ``n`` tool cycles; returns cycle times, DB sizes at marks, and the session."""
    import cairn.graph.session.session as session_module
    from cairn import Session
    from cairn.tools.workspace import Workspace

    session_module.RECURSION_LIMIT = 10**6  # 4 graph steps per cycle: 5,000 cycles pass 10,000
    ws = tmp / "ws"
    ws.mkdir(exist_ok=True)
    db = tmp / f"scale{n}.db"
    w = Workspace(ws)
    model = bg.InstantModel(bg.turns(n))
    session = Session(ws, model=model, db=str(db), tools=[bg.BlobTool(w), bg.GateTool(w)], max_steps=10**6)
    stamps: list[float] = []

    def on_event(kind: str, payload: dict) -> None:
        if kind == "tool_end":
            stamps.append(time.perf_counter())

    result = session.send("go", on_event=on_event)
    assert result.status == "done", result.status
    cycles = [b - a for a, b in itertools.pairwise(stamps)]
    return {"cycles": cycles, "db": db, "session": session}


def around(cycles: list[float], turn: int, half: int = 50) -> list[float]:
    """The 101 cycles around ``turn`` (a busy shared machine has spikes of ~100 ms); at the end of
    the session, the last 101 (not the last 51)."""
    lo = max(0, min(turn + half, len(cycles)) - 2 * half - 1)
    return cycles[lo : lo + 2 * half + 1]


def copy_at(session, turns: int, tmp: Path) -> tuple[Path, str]:
    """A database holding the session rewound to ``turns`` cycles (by truncating its transcript)."""
    db = tmp / f"resume{turns}.db"
    child = bg  # keep linters quiet about unused imports in subprocess templates
    del child
    n_msgs = 1 + 2 * turns  # "go", then (AI + Tool) per cycle
    from cairn import Session
    from cairn.tools.workspace import Workspace

    history = session.history()[:n_msgs]
    w = Workspace(session.workspace.root)
    fresh = Session(w, model=bg.InstantModel([{"content": "x"}]), db=str(db), tools=[bg.BlobTool(w)])
    head = fresh.store.transcript.append(fresh.id, None, [m.model_copy() for m in history])
    graph_config = {"configurable": {"thread_id": fresh.id}}
    fresh.core.graph.update_state(graph_config, {"head": head}, as_node="observation")
    sid = fresh.id
    fresh.close()
    return db, sid


def resume_ms(db: Path, sid: str, ws: Path, tmp: Path) -> tuple[float, int]:
    code = RESUME_CHILD.format(root=str(ROOT), bench=str(HERE), ws=str(ws), sid=sid, db=str(db))
    samples, count = [], 0
    for _ in range(REPEATS):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "CAIRN_HOME": str(tmp / "home")},
        )
        doc = json.loads(out.stdout.strip().splitlines()[-1])
        samples.append(doc["first_call_ms"])
        count = doc["messages"]
    return statistics.median(samples), count


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def show_times(db: Path, sid: str, n: int) -> None:
    """``cairn show`` (text and ``--json``) beside ``python -c pass``, interleaved, medians."""
    cairn = shutil.which("cairn", path=str(Path(sys.executable).parent)) or "cairn"
    env = {**os.environ, "COLUMNS": "120"}
    runs: dict[str, list[tuple[float, float]]] = {"show": [], "--json": [], "python -c pass": []}
    argv = {
        "show": [cairn, "show", sid, "--db", str(db)],
        "--json": [cairn, "show", sid, "--db", str(db), "--json"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }
    for _ in range(REPEATS):
        for name, cmd in argv.items():
            runs[name].append(timed(cmd, env))
    parts = []
    for name, samples in runs.items():
        wall = statistics.median(w for w, _ in samples) * 1000
        cpu = statistics.median(c for _, c in samples) * 1000
        parts.append(f"{name} {wall:.0f} ms (CPU {cpu:.0f} ms)")
    print(f"cairn show at {n} turns: " + ", ".join(parts) + f"; median of {REPEATS}, load avg {load()}")


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def show_only(n: int, tmp: Path) -> None:
    """``--show-only``: build (or reuse) the ``n``-turn database, then time ``cairn show``."""
    db = tmp / f"scale{n}.db"
    if db.exists():
        import sqlite3

        with sqlite3.connect(db) as conn:
            sid = conn.execute("SELECT thread_id FROM cairn_sessions WHERE parent_id = ''").fetchone()[0]
    else:
        t0 = time.perf_counter()
        run = run_session(n, tmp)
        print(f"{n} tool cycles in {time.perf_counter() - t0:.1f} s")
        sid = run["session"].id
        run["session"].close()
    show_times(db, sid, n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="10,500,2000,5000")
    ap.add_argument("--keep", default=None, help="directory to keep the databases in")
    ap.add_argument(
        "--show-only",
        action="store_true",
        help="only time `cairn show` of the largest session (reuses --keep DIR's database)",
    )
    ap.add_argument(
        "--sessions", type=int, default=1, help="run this many sessions; per-cycle times are their median"
    )
    args = ap.parse_args()
    marks = [int(x) for x in args.turns.split(",")]
    n = max(marks)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cairn-scale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    os.environ["CAIRN_HOME"] = str(tmp / "home")
    try:
        if args.show_only:
            show_only(n, tmp)
            return
        per_session: list[list[float]] = []  # ms per cycle at each mark, one row per session
        run: dict = {}
        for index in range(args.sessions):
            if run:
                run["session"].close()
            where = tmp / f"session{index}" if args.sessions > 1 else tmp
            where.mkdir(exist_ok=True)
            t0 = time.perf_counter()
            run = run_session(n, where)
            print(f"{n} tool cycles in {time.perf_counter() - t0:.1f} s")
            per_session.append([statistics.median(around(run["cycles"], mark)) * 1000 for mark in marks])
        print(f"{'turn':>6} {'ms/cycle':>9} {'x turn ' + str(marks[0]):>11}", end="")
        print("   (median of the sessions; each session's ms/cycle)" if args.sessions > 1 else "")
        base = statistics.median(row[0] for row in per_session)
        for k, mark in enumerate(marks):
            ms = statistics.median(row[k] for row in per_session)
            each = "   " + " ".join(f"{row[k]:.2f}" for row in per_session) if args.sessions > 1 else ""
            print(f"{mark:>6} {ms:>9.2f} {ms / base:>11.2f}{each}")
        session = run["session"]
        raw = bg.raw_transcript_bytes(session.history())
        size = bg.db_bytes(run["db"])
        print(
            f"DB at {n} turns: {size / 2**20:.1f} MB = {size / raw:.2f} x raw transcript ({raw / 2**20:.1f} MB)"
        )

        ws = session.workspace.root
        resumed = {}
        for turns in sorted({min(500, n), n}):
            db, sid = copy_at(session, turns, tmp)
            resumed[turns] = resume_ms(db, sid, ws, tmp)
            ms, count = resumed[turns]
            print(
                f"resume + first model call at {turns} turns ({count} messages): {ms:.0f} ms (median of {REPEATS})"
            )
        if len(resumed) == 2:
            small, large = sorted(resumed)
            print(f"  ratio {large}/{small} turns: x{resumed[large][0] / resumed[small][0]:.2f}")

        show_times(run["db"], session.id, n)
        session.close()
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
