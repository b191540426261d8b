"""CPU per turn: cairn beside LangGraph's ``create_react_agent`` (and deepagents, if installed).

    .venv/bin/python tests/benchmarks/bench_peers.py [--turns 10,100,500] [--repeats 3]

Every agent runs the same scripted session: N turns of one tool call each (a 2 KB result, the
payloads of ``bench_graph``), then a final answer, on the same instant chat model (a
``BaseChatModel`` that returns the next scripted message at once), each with a SQLite
checkpointer written on every step (``durability="sync"``).  What is timed is the harness.

The number per agent and size is this process's CPU time (all threads) for one ``send`` /
``invoke`` of the whole session, divided by N: so it includes the fixed cost of a send (at 10
turns it weighs most) and, for cairn, the session's background warm-up (glob's stat cache; the
rewind snapshot and the shell's git status are warmed only for a call that may write, which the
bench's read-only tool never is).  A sample of a size under ``--min-turns`` sums ``min_turns //
N`` sessions, each agent's interleaved with the others', over all their turns: one 10-turn
session is ~60 ms of CPU, within the noise of a shared machine.  Every cairn session is new,
with its own database, in one workspace: a project's first session also creates the workspace's
shadow repository (``git init``), which is not timed here.  The agents run round-robin,
``--repeats`` times per size, and the ratios are paired: peer/cairn within one repetition, the
median and range printed.  A peer ratio above 1 means cairn used less CPU.

Also printed: cairn's fixed CPU cost per send (a one-answer send on a session already used,
median of 20) and its checkpoint database against the raw transcript at the largest size.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import bench_graph as bg  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from pydantic import Field  # noqa: E402


class ScriptModel(BaseChatModel):
    """Returns the next turn of its script at once; ``bind_tools`` binds nothing."""

    script: list[dict] = Field(default_factory=list)
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-script"

    def bind_tools(self, tools: Any, **kw: Any) -> ScriptModel:
        return self

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        turn = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        calls = [{**c, "type": "tool_call"} for c in turn.get("tool_calls", [])]
        return ChatResult(generations=[ChatGeneration(message=AIMessage(turn["content"], tool_calls=calls))])


def blob_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    def blob(n: int) -> str:
        """Returns 2 KB."""
        return bg.PAYLOADS[n % len(bg.PAYLOADS)]

    return blob


def cpu(fn: Callable[[], Any]) -> float:
    began = time.process_time()
    fn()
    return time.process_time() - began


# -- the agents: each returns the CPU seconds of one session of n turns -------------------------
def run_cairn(n: int, tmp: Path) -> float:
    from cairn import Session
    from cairn.tools.workspace import Workspace

    ws = tmp / "ws"  # one project, a new session (and database) each time
    ws.mkdir(exist_ok=True)
    session = Session(
        ws,
        model=ScriptModel(script=bg.turns(n)),
        db=str(tmp / f"cairn-{n}-{time.monotonic_ns()}.db"),
        tools=[bg.BlobTool(Workspace(ws))],
        max_steps=10_000,
    )
    result: list[Any] = []
    spent = cpu(lambda: result.append(session.send("go")))
    assert result[0].status == "done", result[0].status
    session.close()
    return spent


def run_react(n: int, tmp: Path) -> float:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.prebuilt import create_react_agent

    conn = sqlite3.connect(tmp / f"react-{n}-{time.monotonic_ns()}.db", check_same_thread=False)
    agent = create_react_agent(ScriptModel(script=bg.turns(n)), [blob_tool()], checkpointer=SqliteSaver(conn))
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6}
    spent = cpu(lambda: agent.invoke({"messages": [("user", "go")]}, config, durability="sync"))
    conn.close()
    return spent


def run_deepagents(n: int, tmp: Path) -> float:
    from deepagents import create_deep_agent
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(tmp / f"deep-{n}-{time.monotonic_ns()}.db", check_same_thread=False)
    agent = create_deep_agent(
        model=ScriptModel(script=bg.turns(n)), tools=[blob_tool()], checkpointer=SqliteSaver(conn)
    )
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6}
    spent = cpu(lambda: agent.invoke({"messages": [("user", "go")]}, config, durability="sync"))
    conn.close()
    return spent


def fixed_send_cost(tmp: Path) -> float:
    """Median CPU of a one-answer send on a session already used once (ms)."""
    from cairn import Session

    ws = tmp / "fixed"
    ws.mkdir()
    session = Session(ws, model=ScriptModel(script=[{"content": "ok"}]), db=str(ws / "c.db"))
    session.send("warm")
    samples = [cpu(lambda i=i: session.send(f"hi {i}")) for i in range(20)]
    session.close()
    return statistics.median(samples) * 1000


def storage(n: int, tmp: Path) -> tuple[int, int]:
    """cairn's database after an ``n``-turn session (``bench_graph``'s) and its raw transcript, bytes."""
    run = bg.run_cairn(n, tmp)
    run["session"].close()
    return bg.db_bytes(run["db"]), run["raw"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="10,100,500")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-deepagents", action="store_true")
    ap.add_argument(
        "--min-turns",
        type=int,
        default=200,
        help="a sample of a small size sums sessions (interleaved across agents) up to this many turns",
    )
    args = ap.parse_args()
    sizes = [int(x) for x in args.turns.split(",")]
    agents: dict[str, Callable[[int, Path], float]] = {"cairn": run_cairn, "create_react_agent": run_react}
    if not args.no_deepagents:
        try:
            import deepagents  # noqa: F401

            agents["deepagents"] = run_deepagents
        except ImportError:
            print("deepagents is not installed: compared with create_react_agent only")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ["CAIRN_HOME"] = str(tmp / "home")
        for run in agents.values():  # imports and first-use caches outside the timed runs
            run(2, tmp)
        print(f"cairn fixed CPU per send (median of 20): {fixed_send_cost(tmp):.1f} ms")
        per_turn: dict[tuple[str, int], list[float]] = {}
        for n in sizes:
            batch = max(1, args.min_turns // n)  # sessions per sample: small sizes are noisy alone
            for _ in range(args.repeats):
                spent = dict.fromkeys(agents, 0.0)
                for _ in range(batch):  # interleaved, so a change in the machine's load hits all
                    for name, run in agents.items():
                        spent[name] += run(n, tmp)
                for name in agents:
                    per_turn.setdefault((name, n), []).append(spent[name] / (n * batch) * 1000)
        print(f"\nCPU per turn, ms (median of {args.repeats}; paired ratio peer/cairn, median [range])")
        print(f"{'turns':>6} " + " ".join(f"{name:>20}" for name in agents) + "   ratios")
        for n in sizes:
            cells = [f"{statistics.median(per_turn[(name, n)]):>20.2f}" for name in agents]
            ratios = []
            for name in agents:
                if name == "cairn":
                    continue
                pairs = [p / c for p, c in zip(per_turn[(name, n)], per_turn[("cairn", n)], strict=True)]
                ratios.append(f"{name} x{statistics.median(pairs):.2f} [{min(pairs):.2f}-{max(pairs):.2f}]")
            print(f"{n:>6} " + " ".join(cells) + "   " + "; ".join(ratios))
        db, raw = storage(max(sizes), tmp)
        print(
            f"\ncairn's database at {max(sizes)} turns: {db / 1e6:.2f} MB = {db / raw:.2f} x the raw "
            f"transcript ({raw / 1e6:.2f} MB)"
        )
        load = os.getloadavg()
        print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
