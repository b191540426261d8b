"""Harness overhead, checkpoint size, approval round trip and resume latency.

    .venv/bin/python tests/benchmarks/bench_graph.py [--turns 50,200,500]

Every number is printed beside a plain LangGraph baseline measured in the same
run: a two-node agent graph with ``add_messages`` and ``SqliteSaver`` doing the
same turns (an AIMessage with one tool call, then a 2 KB ToolMessage). Model
and tools are faked to return at once, so what is timed is the harness: graph,
policy, journal, transcript and checkpoints.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from pydantic import Field  # noqa: E402

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult  # noqa: E402


def _payloads(count: int = 64) -> list[str]:
    """Realistic 2 KB tool outputs: slices of real Python source (compresses like real output)."""
    import langgraph.pregel.main as src

    text = Path(src.__file__).read_text()
    return [text[i * 2048 : (i + 1) * 2048] for i in range(count)]


PAYLOADS = _payloads()


class S(TypedDict):
    messages: Annotated[list, add_messages]


class BlobArgs(ArgsModel):
    n: int = Field(description="Turn number.")


class BlobTool(Tool):
    name = "blob"
    description = "Returns 2 KB."
    args_schema = BlobArgs
    risk_level = RiskLevel.LOW
    read_only = True

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult(output=PAYLOADS[params.n % len(PAYLOADS)], display="2 KB")


class GateTool(BlobTool):
    name = "gate"
    risk_level = RiskLevel.MEDIUM
    read_only = False


def turns(n: int, final_tool: str | None = None) -> list[dict]:
    out = [
        {"content": f"turn {i}", "tool_calls": [{"name": "blob", "args": {"n": i}, "id": f"c{i}"}]}
        for i in range(n)
    ]
    if final_tool:
        out += [
            {"content": "gate", "tool_calls": [{"name": final_tool, "args": {"n": i}, "id": f"g{i}"}]}
            for i in range(n, n + 50)
        ]
    return [*out, {"content": "done"}]


def raw_transcript_bytes(messages: list[BaseMessage]) -> int:
    total = 0
    for m in messages:
        total += len(m.content if isinstance(m.content, str) else json.dumps(m.content))
        if isinstance(m, AIMessage):
            total += len(json.dumps(m.tool_calls))
    return total


def db_bytes(path: Path) -> int:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


class InstantModel:
    """A fake chat model that answers in constant time (the scripted model counts words of the
    whole history for its usage numbers, which would be model cost, not harness cost)."""

    def __init__(self, script: list[dict]) -> None:
        self.script = script
        self.calls = 0

    def bind_tools(self, tools: Any, **kw: Any) -> InstantModel:
        return self

    def invoke(self, messages: Any, *a: Any, **kw: Any) -> AIMessage:
        t = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        calls = [{**c, "type": "tool_call"} for c in t.get("tool_calls", [])]
        return AIMessage(t["content"], tool_calls=calls)


# -- cairn -------------------------------------------------------------------------------------
def run_cairn(n: int, tmp: Path, *, final_tool: str | None = None) -> dict[str, Any]:
    from cairn import Session
    from cairn.tools.workspace import Workspace

    ws = tmp / f"ws{n}"
    ws.mkdir(exist_ok=True)
    db = tmp / f"cairn{n}.db"
    model = InstantModel(turns(n, final_tool))
    w = Workspace(ws)
    session = Session(ws, model=model, db=str(db), tools=[BlobTool(w), GateTool(w)], max_steps=10_000)
    stamps: list[float] = []

    def on_event(kind: str, payload: dict) -> None:
        if kind == "tool_end":
            stamps.append(time.perf_counter())

    t0 = time.perf_counter()
    result = session.send("go", on_event=on_event)
    total = time.perf_counter() - t0
    cycles = [b - a for a, b in itertools.pairwise(stamps)]
    out = {"status": result.status, "total_s": total, "cycles": cycles, "db": db, "session": session}
    out["raw"] = raw_transcript_bytes(session.history())
    return out


# -- plain LangGraph baseline ------------------------------------------------------------------------
def run_baseline(n: int, tmp: Path) -> dict[str, Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    model = InstantModel(turns(n))
    stamps: list[float] = []

    def agent(state: S) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def tools(state: S) -> dict:
        last = state["messages"][-1]
        out = {
            "messages": [
                ToolMessage(PAYLOADS[c["args"]["n"] % len(PAYLOADS)], tool_call_id=c["id"])
                for c in last.tool_calls
            ]
        }
        stamps.append(time.perf_counter())
        return out

    g = StateGraph(S)
    g.add_node("agent", agent)
    g.add_node("tools", tools)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", lambda s: "tools" if s["messages"][-1].tool_calls else END)
    g.add_edge("tools", "agent")
    db = tmp / f"base{n}.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    app = g.compile(checkpointer=SqliteSaver(conn))
    t0 = time.perf_counter()
    app.invoke(
        {"messages": [("user", "go")]},
        {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6},
        durability="sync",
    )
    total = time.perf_counter() - t0
    conn.close()
    cycles = [b - a for a, b in itertools.pairwise(stamps)]
    return {"total_s": total, "cycles": cycles, "db": db}


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def window(cycles: list[float], at: int, width: int = 40) -> list[float]:
    lo = max(0, min(at, len(cycles)) - width)
    return cycles[lo : lo + width]


def approval_round_trip(tmp: Path, n: int) -> tuple[float, Any]:
    res = run_cairn(n, tmp, final_tool="gate")
    session = res["session"]
    assert res["status"] == "awaiting_approval", res["status"]
    samples = []
    for _ in range(20):
        t0 = time.perf_counter()
        r = session.approve()
        samples.append(time.perf_counter() - t0)
        assert r.status == "awaiting_approval", r.status
    return statistics.median(samples) * 1000, session


RESUME_CHILD = r"""
import sys, time, json
sys.path.insert(0, {root!r})
from cairn import Session
import cairn.graph.session.session, cairn.graph.build, cairn.graph.models, cairn.graph.models.scripted, cairn.policy, cairn.checkpoints, cairn.tools
from langchain_openai import ChatOpenAI  # what a real run imports too
cairn.tools.builtin_tool_classes()  # imports every tool module
sys.path.insert(0, {bench!r})
import bench_graph as b
from cairn.tools.workspace import Workspace
model = b.InstantModel(b.turns({n}, "gate")[{n}:])
w = Workspace({ws!r})
t0 = time.perf_counter()
s = Session.resume({sid!r}, db={db!r}, model=model, tools=[b.BlobTool(w), b.GateTool(w)])
first = []
s.approve(on_event=lambda k, p: first.append(time.perf_counter()) if k == "tool_start" else None)
print(json.dumps({{"first_node_ms": (first[0] - t0) * 1000}}))
"""


def resume_latency(session: Any, tmp: Path, n: int) -> float:
    code = RESUME_CHILD.format(
        root=str(ROOT),
        bench=str(Path(__file__).parent),
        n=n,
        ws=str(session.workspace.root),
        sid=session.id,
        db=session.store.location,
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "CAIRN_HOME": str(tmp / "home")},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["first_node_ms"]


def telemetry_overhead(tmp: Path, n: int) -> None:
    """Per tool cycle with OpenTelemetry off and on (spans to an in-memory exporter, metrics to a
    reader), runs interleaved off/on/off/on so the machine's load hits both alike (issue 34)."""
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from cairn.graph.core import telemetry

    cycles: dict[bool, list[float]] = {False: [], True: []}
    for attempt in range(2):
        for on in (False, True):
            where = tmp / f"otel-{attempt}-{on}"
            where.mkdir()
            if on:
                telemetry.configure(
                    span_exporter=InMemorySpanExporter(), metric_reader=InMemoryMetricReader()
                )
            try:
                run = run_cairn(n, where)
            finally:
                telemetry.disable()
            run["session"].close()
            cycles[on] += run["cycles"]
    off_ms, on_ms = median_ms(cycles[False]), median_ms(cycles[True])
    print(
        f"telemetry at {n} turns, per tool cycle (median ms, interleaved runs): off {off_ms:.2f}, "
        f"on {on_ms:.2f} ({on_ms - off_ms:+.2f} ms)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="50,200,500")
    ap.add_argument(
        "--telemetry", action="store_true", help="also time the largest run with OpenTelemetry on (issue 34)"
    )
    args = ap.parse_args()
    sizes = [int(x) for x in args.turns.split(",")]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ["CAIRN_HOME"] = str(tmp / "home")
        print(
            f"{'turns':>6} {'raw KB':>9} {'cairn DB KB':>12} {'x raw':>7} {'baseline DB KB':>15} {'x raw':>8}"
        )
        largest = None
        for n in sizes:
            c = run_cairn(n, tmp)
            b = run_baseline(n, tmp)
            raw = c["raw"]
            cdb, bdb = db_bytes(c["db"]), db_bytes(b["db"])
            print(
                f"{n:>6} {raw / 1024:>9.0f} {cdb / 1024:>12.0f} {cdb / raw:>7.2f} {bdb / 1024:>15.0f} {bdb / raw:>8.1f}"
            )
            largest = (n, c, b)
            c["session"].close()
        n, c, b = largest
        c10, c_end = median_ms(window(c["cycles"], 10)), median_ms(window(c["cycles"], len(c["cycles"])))
        b10, b_end = median_ms(window(b["cycles"], 10)), median_ms(window(b["cycles"], len(b["cycles"])))
        print(
            f"\nper tool cycle (median ms): cairn at turn 10 = {c10:.2f}, at turn {n} = {c_end:.2f} "
            f"(growth x{c_end / c10:.2f}); baseline at 10 = {b10:.2f}, at {n} = {b_end:.2f} "
            f"(growth x{b_end / b10:.2f}); cairn/baseline at {n} = {c_end / b_end:.2f}"
        )
        if args.telemetry:
            telemetry_overhead(tmp, n)
        rt, session = approval_round_trip(tmp, n)
        print(f"approval round trip at {n} turns (median of 20): {rt:.1f} ms")
        resume = resume_latency(session, tmp, n)
        print(f"resume in a new process at {n} turns: first node running {resume:.1f} ms after imports")
        session.close()


if __name__ == "__main__":
    main()
