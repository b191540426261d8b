"""Load on one PostgreSQL: 8 worker processes x 25 sessions, random SIGKILLs, resumption by others.

    .venv/bin/python tests/benchmarks/bench_pg_load.py [--workers 8] [--sessions 25] [--cycles 4]
        [--kills 12] [--repeats 5] [--url postgresql://...]

Without ``--url`` (or ``$CAIRN_TEST_PG_URL``) a throwaway cluster is started
(``tests.support.pg_cluster``).  Each repeat uses a fresh schema:

- ``workers * sessions`` sessions are created; every one runs a scripted model that makes
  ``cycles`` tool calls (one per turn) and then answers.  The tool is a counted side effect:
  it inserts a row keyed by its label (session + turn) into ``bench_effects`` from its own
  connection, then sleeps 10 ms.
- Workers take sessions from the shared list in random order.  A worker holds a session's
  run lock (the Postgres advisory lock) for its whole turn at it; sessions held by another
  worker are skipped, so a killed worker's sessions are picked up by the others the moment
  the server notices its connections closed.  A recovered session with an interrupted call
  gets it cancelled (never re-run: the side effect may have happened), then continues.
- The coordinator SIGKILLs ``kills`` times, spread over the first 90% of the work, a random
  worker that is inside a session at that moment, and starts a replacement; the sessions the
  killed workers were in are finished by other workers.

Reported: throughput (successful tool cycles per second, all workers, from the first side
effect to the last worker's exit), p50/p99 harness time per tool
cycle (model answer to the next model answer, minus the tool's own run time: journal writes,
checkpoints, transcript, policy), and the invariants, checked from the database:
duplicated side effects (a label with more than one effect row), lost results (a call
journaled ``success`` whose result is not in the transcript), dangling tool calls (an AI tool
call without exactly one ToolMessage), unfinished sessions.  The baseline is the same
workload in one process on SQLite, without kills, in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

TOOL_SECONDS = 0.01
#: No side effect and no worker looking at a session for this long ends a repeat as stalled
#: (with the workers' stacks and the server's locks).
STALL_S = 120.0


# -- the worker (a separate process) ---------------------------------------------------------
def _effect_tool(effects_url: str | None, ws: Any) -> Any:
    from pydantic import Field

    from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolResult

    conn = None
    if effects_url:
        import psycopg

        conn = psycopg.connect(effects_url, autocommit=True)

    class Args(ArgsModel):
        label: str = Field(description="The side effect's label.")

    class Effect(Tool):
        name = "effect"
        description = "A counted side effect."
        args_schema = Args
        risk_level = RiskLevel.LOW

        def run(self, params: Any, ctx: Any) -> ToolResult:
            if conn is not None:
                conn.execute(
                    "INSERT INTO bench_effects (label, pid) VALUES (%s, %s)", (params.label, os.getpid())
                )
            time.sleep(TOOL_SECONDS)
            return ToolResult(output=f"ran {params.label}", display=params.label)

    return Effect(ws)


def script_for(sid: str, cycles: int) -> list[dict]:
    turns: list[dict] = [
        {"tool_calls": [{"name": "effect", "args": {"label": f"{sid}:{i}"}, "id": f"c{i}"}]}
        for i in range(cycles)
    ]
    return [*turns, {"content": "done"}]


class CycleClock:
    """Harness time per tool cycle from the Session's events."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._cycle_start: float | None = None
        self._tool_start = 0.0
        self._tool_total = 0.0

    def __call__(self, kind: str, payload: dict) -> None:
        now = time.perf_counter()
        if kind == "message":
            if self._cycle_start is not None:
                self.samples.append(now - self._cycle_start - self._tool_total)
            self._cycle_start = now if payload.get("tool_calls") else None
            self._tool_total = 0.0
        elif kind == "tool_start":
            self._tool_start = now
        elif kind == "tool_end":
            self._tool_total += now - self._tool_start


def drive(session: Any, sid: str, cycles: int, clock: CycleClock, busy: Path | None = None) -> bool:
    """One turn at a session, holding its run lock throughout; True when it is done.

    ``busy`` names the session while the worker is in it, so the coordinator kills workers
    in the middle of a session, not while they start up."""
    with session.core.run_lock.hold():
        if busy is not None:
            busy.write_text(sid)
        if session.status == "done":
            return True
        if not session.history():
            result = session.send("go", on_event=clock)
        else:
            result = session.continue_(on_event=clock)
        while result.status == "interrupted":  # killed mid-call: never re-run a side effect
            result = session.cancel(on_event=clock)
        if result.status == "awaiting_approval":
            result = session.approve(on_event=clock)
        if busy is not None:
            busy.unlink(missing_ok=True)
        return result.status == "done"


def worker(db: str, effects_url: str | None, ids: list[str], ws: str, cycles: int, out: str) -> None:
    from cairn import Session
    from cairn.checkpoints import open_store
    from cairn.graph.models.scripted import ScriptedChatModel
    from cairn.graph.session.runlock import SessionBusy
    from cairn.tools.workspace import Workspace

    tool = _effect_tool(effects_url, Workspace(ws))
    clock = CycleClock()
    cycles_done = 0
    pending = list(ids)
    random.shuffle(pending)
    store = open_store(db)
    beat = Path(out + ".beat")
    while pending:
        progressed = False
        for sid in list(pending):
            beat.touch()  # alive and looking (the coordinator's stall check)
            record = store.sessions.get(sid)
            if record is not None and record.status == "done":  # finished by another worker
                pending.remove(sid)
                continue
            model = ScriptedChatModel.from_turns(script_for(sid, cycles))
            try:
                session = Session(ws, model=model, db=db, tools=[tool], session_id=sid, _store=store)
                before = len(clock.samples)
                if drive(session, sid, cycles, clock, Path(out + ".busy")):
                    pending.remove(sid)
                cycles_done += len(clock.samples) - before
                progressed = True
            except SessionBusy:
                continue  # another worker holds it right now (any other error ends this worker, loudly)
        if not progressed:
            time.sleep(0.05)
        with open(out, "w") as fh:  # progress survives a SIGKILL up to the last session
            json.dump({"samples": clock.samples, "cycles": cycles_done}, fh)
    store.close()


# -- the coordinator ------------------------------------------------------------------------------
def fresh_schema(url: str) -> str:
    import psycopg

    from tests.support.pg_fixtures import with_schema

    schema = "bench_" + uuid.uuid4().hex[:10]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"CREATE TABLE {schema}.bench_effects (label TEXT NOT NULL, pid INTEGER NOT NULL)")
    return with_schema(url, schema)


def create_sessions(db: str, ws: str, n: int) -> list[str]:
    from cairn.checkpoints import open_store

    store = open_store(db)
    ids = [f"s{i:04d}-{uuid.uuid4().hex[:8]}" for i in range(n)]
    for sid in ids:
        store.sessions.create(sid, workspace=ws, mode="default", model="")
    store.close()
    return ids


def spawn(db: str, ids: list[str], ws: str, cycles: int, tmp: Path, n: int) -> tuple[subprocess.Popen, Path]:
    out = tmp / f"worker{n}.json"
    args = json.dumps({"db": db, "effects_url": db, "ids": ids, "ws": ws, "cycles": cycles, "out": str(out)})
    proc = subprocess.Popen([sys.executable, __file__, "--worker", args], cwd=ROOT, stdout=subprocess.DEVNULL)
    _STARTED[proc.pid] = time.time()
    return proc, out


def _silent_for(proc: subprocess.Popen, out: Path) -> float:
    """Seconds since the worker last looked at a session (since it started, before its first)."""
    try:
        last = Path(str(out) + ".beat").stat().st_mtime
    except FileNotFoundError:
        last = _STARTED[proc.pid]
    return time.time() - last


_STARTED: dict[int, float] = {}


def _busy_in(out: Path) -> str:
    """The session a worker is in right now ("" between sessions: the file comes and goes)."""
    try:
        return Path(str(out) + ".busy").read_text()
    except FileNotFoundError:
        return ""


def run_load(
    url: str, workers: int, sessions: int, cycles: int, kills: int, tmp: Path, stall_s: float = STALL_S
) -> dict:
    db = fresh_schema(url)
    ws = str(tmp / "ws")
    os.makedirs(ws, exist_ok=True)
    ids = create_sessions(db, ws, workers * sessions)
    import psycopg

    probe = psycopg.connect(db, autocommit=True)
    total = len(ids) * cycles
    procs = [spawn(db, ids, ws, cycles, tmp, n) for n in range(workers)]
    spawned = workers
    killed = 0
    resumed: set[str] = set()  # sessions a killed worker was in: someone else must finish them
    started: float | None = None  # the first side effect: workers are up and running
    next_kill = 0.0
    stalled = ""
    last_effects, last_progress = -1, time.monotonic()
    while any(p.poll() is None for p, _ in procs):
        time.sleep(0.05)
        effects = probe.execute("SELECT count(*) FROM bench_effects").fetchone()[0]
        if effects != last_effects:
            last_effects, last_progress = effects, time.monotonic()
        # Stalled: a worker silent (stuck in one session or call), or no side effect while
        # work remains (every worker waiting for something nobody releases).
        silent = [p.pid for p, out in procs if p.poll() is None and _silent_for(p, out) > stall_s]
        if silent or (effects < total and time.monotonic() - last_progress > stall_s):
            stalled = _stalled(procs, db, effects, stall_s, silent)
            break
        if started is None:
            if effects == 0:
                continue
            started = time.perf_counter()
            next_kill = time.monotonic() + random.uniform(0.2, 1.0)
        # Kills spread over the run (the i-th once i/(kills+1) of 90% of the work is done),
        # each at a worker that is inside a session right now.
        due = killed < kills and effects >= (killed + 1) / (kills + 1) * total * 0.9
        if due and time.monotonic() >= next_kill:
            busy = [(p, sid) for p, out in procs if p.poll() is None and (sid := _busy_in(out))]
            if busy:
                victim, victim_sid = random.choice(busy)
                time.sleep(random.uniform(0, 0.05))  # anywhere in the cycle
                victim.kill()  # SIGKILL
                victim.wait()
                killed += 1
                resumed.add(victim_sid)
                procs.append(spawn(db, ids, ws, cycles, tmp, spawned))
                spawned += 1
                next_kill = time.monotonic() + 0.2
    probe.close()
    started = started if started is not None else time.perf_counter()
    wall = time.perf_counter() - started
    samples: list[float] = []
    for _, out in procs:
        if out.exists():
            samples += json.loads(out.read_text())["samples"]
    report = check_invariants(db, ids)
    report.update(wall=wall, kills=killed, samples=samples, killed_in=len(resumed), stalled=stalled)
    return report


def _stalled(
    procs: list[tuple[subprocess.Popen, Path]], db: str, effects: int, stall_s: float, silent: list[int]
) -> str:
    """Record what the live workers and the server were doing, then stop the workers."""
    from tests.benchmarks.pg_stall import diagnose

    live = [p for p, _ in procs if p.poll() is None]
    report = Path(tempfile.gettempdir()) / f"bench_pg_load-stall-{os.getpid()}-{int(time.time())}.txt"
    report.write_text(diagnose([p.pid for p in live], db))
    for p in live:
        p.kill()
        p.wait()
    why = f"workers {silent} silent" if silent else "no side effect"
    print(
        f"STALLED: {why} for {stall_s:.0f} s at {effects} effects; stacks and locks in {report}", flush=True
    )
    return str(report)


def check_invariants(db: str, ids: list[str]) -> dict:
    from langchain_core.messages import AIMessage, ToolMessage

    from cairn.checkpoints import open_store

    store = open_store(db)
    dup = lost = dangling = unfinished = interrupted = success = 0
    try:
        dup = store.db.query(
            "SELECT count(*) FROM (SELECT label FROM bench_effects GROUP BY label HAVING count(*) > 1) d"
        )[0][0]
        for sid in ids:
            tup = store.saver.get_tuple({"configurable": {"thread_id": sid}})
            head = tup.checkpoint["channel_values"].get("head") if tup else None
            messages = store.transcript.read(sid, head)
            unfinished += int(store.sessions.get(sid).status != "done")
            answers: dict[str, list[str]] = {}
            for m in messages:
                if isinstance(m, ToolMessage):
                    answers.setdefault(m.tool_call_id, []).append(str(m.content))
            call_ids = [tc["id"] for m in messages if isinstance(m, AIMessage) for tc in m.tool_calls]
            dangling += sum(1 for cid in call_ids if len(answers.get(cid, [])) != 1)
            for entry in store.journal.entries(sid):
                if entry.status == "success":
                    success += 1
                    if not any(
                        a.startswith(f"ran {entry.arguments.get('label')}")
                        for a in answers.get(entry.call_id, [])
                    ):
                        lost += 1
                elif entry.status in ("cancelled", "interrupted"):
                    interrupted += 1
    finally:
        store.close()
    return {
        "duplicated": dup,
        "lost": lost,
        "dangling": dangling,
        "unfinished": unfinished,
        "cancelled_after_kill": interrupted,
        "successful_calls": success,
    }


def baseline(sessions: int, cycles: int, tmp: Path) -> list[float]:
    """The same sessions in one process on SQLite, no kills: harness time per cycle."""
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel
    from cairn.tools.workspace import Workspace

    ws = tmp / "ws-base"
    ws.mkdir(exist_ok=True)
    db = str(tmp / "base.db")
    tool = _effect_tool(None, Workspace(ws))
    clock = CycleClock()
    for i in range(sessions):
        s = Session(ws, model=ScriptedChatModel.from_turns(script_for(f"b{i}", cycles)), db=db, tools=[tool])
        drive(s, s.id, cycles, clock)
        s.close()
    return clock.samples


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--sessions", type=int, default=25, help="per worker")
    ap.add_argument("--cycles", type=int, default=4, help="tool calls per session")
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--url", default=os.environ.get("CAIRN_TEST_PG_URL"))
    ap.add_argument("--stall", type=float, default=STALL_S, help="seconds without progress = stalled")
    args = ap.parse_args()
    if args.worker:
        worker(**json.loads(args.worker))
        return 0
    cluster = None
    url = args.url
    if not url:
        from tests.support import pg_cluster

        cluster, url = pg_cluster.start()
    totals = {"duplicated": 0, "lost": 0, "dangling": 0, "unfinished": 0, "stalled": 0}
    rows = []
    try:
        for repeat in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                base = baseline(args.sessions, args.cycles, Path(tmp))
                r = run_load(url, args.workers, args.sessions, args.cycles, args.kills, Path(tmp), args.stall)
            cycles = r["successful_calls"]
            rows.append(
                (
                    cycles / r["wall"],
                    pct(r["samples"], 0.5),
                    pct(r["samples"], 0.99),
                    pct(base, 0.5),
                    pct(base, 0.99),
                )
            )
            r["stalled"] = int(bool(stall_file := r["stalled"]))
            for key in totals:
                totals[key] += r[key]
            print(
                f"repeat {repeat + 1}: {args.workers} workers x {args.sessions} sessions x {args.cycles} cycles, "
                f"{r['kills']} SIGKILLs inside {r['killed_in']} sessions, {r['wall']:.1f} s; {cycles} calls succeeded, "
                f"{r['cancelled_after_kill']} cancelled after a kill; throughput {rows[-1][0]:.0f} cycles/s; "
                f"harness per cycle p50 {rows[-1][1]:.1f} ms p99 {rows[-1][2]:.1f} ms "
                f"(SQLite, 1 process: p50 {rows[-1][3]:.1f} ms p99 {rows[-1][4]:.1f} ms); "
                f"duplicated {r['duplicated']} lost {r['lost']} dangling {r['dangling']} unfinished {r['unfinished']}"
                + (f"; STALLED (see {stall_file})" if stall_file else ""),
                flush=True,
            )
    finally:
        if cluster is not None:
            from tests.support import pg_cluster

            pg_cluster.stop(cluster)
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    print(
        f"\nmedian of {len(rows)} repeats: throughput {med[0]:.0f} tool cycles/s; harness time per cycle "
        f"p50 {med[1]:.1f} ms, p99 {med[2]:.1f} ms on Postgres under load vs p50 {med[3]:.1f} ms, "
        f"p99 {med[4]:.1f} ms on SQLite alone (ratio p50 {med[1] / med[3]:.1f}x)"
    )
    print(f"invariants over all repeats: {totals}")
    return 0 if not any(totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
