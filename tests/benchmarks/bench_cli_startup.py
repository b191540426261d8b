"""CLI startup against ``python -c pass`` measured in the same run.

    .venv/bin/python tests/benchmarks/bench_cli_startup.py [--runs 15]

Targets (issue 6): ``cairn --help`` ≤ 0.15 s, interactive prompt visible ≤ 0.3 s,
``cairn sessions`` ≤ 0.3 s; (issue 30) ``cairn -p`` of a one-step scripted run ≤ 0.5 s of CPU
(user + system, with the processes it waited for).  The interactive number is the time from
spawn until the ``›`` prompt appears on a pseudo-terminal (the agent keeps loading in the
background).  Beside the ``-p`` number: the CPU of importing only the libraries a run cannot do
without (langgraph, its SQLite checkpointer, langchain-core's messages; with the same deferred
re-exports as ``cairn``), the floor cairn's own code adds to.
Prints medians (and the minimum); exits 0 — benchmarks report, they do not assert.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent / "cairn"
CAIRN = [str(BIN)] if BIN.exists() else [sys.executable, "-m", "cairn.graph.apps.cli"]


#: What every run imports before any cairn code matters (bench output: "its dependencies alone").
DEPENDENCIES = (
    "from cairn.graph.apps.lazy_reexports import install; install(); "
    "import langgraph.graph, langgraph.checkpoint.sqlite, langchain_core.messages"
)


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    began = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - began


def child_cpu(cmd: list[str], env: dict[str, str], cwd: str) -> float:
    """User + system CPU seconds of ``cmd`` and the processes it waited for (on a shared
    machine the CPU time says more than the wall clock)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def prompt_visible(env: dict[str, str], cwd: str, script: str) -> float:
    began = time.perf_counter()
    child = pexpect.spawn(CAIRN[0], [*CAIRN[1:], "--model", script], cwd=cwd, env=env, timeout=20)
    child.expect("› ".encode())
    elapsed = time.perf_counter() - began
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def seed_sessions(db: str, workspace: str, count: int) -> None:
    """``count`` finished sessions in the database (so ``cairn sessions`` has rows to list)."""
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "from cairn import Session\n"
        "for i in range(%d):\n"
        "    s = Session(%r, model=%r, db=%r); s.send(f'task {i}'); s.close()\n"
    )
    script = Path(workspace, ".bench-script.json")
    script.write_text(json.dumps({"turns": [{"content": "ok"}]}))
    subprocess.run(
        [sys.executable, "-c", code % (str(ROOT), count, workspace, f"script:{script}", db)], check=True
    )


def report(name: str, samples: list[float], baseline: float, target: float | None) -> None:
    med = statistics.median(samples)
    goal = f"  target ≤ {target:.2f} s: {'ok' if med <= target else 'OVER'}" if target else ""
    print(
        f"{name:<28} median {med * 1000:7.1f} ms  min {min(samples) * 1000:7.1f} ms  "
        f"({med / baseline:4.1f}× python -c pass){goal}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sessions", type=int, default=50)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = os.path.realpath(tmp)
        env = dict(
            os.environ, CAIRN_HOME=workspace, CAIRN_DB=os.path.join(workspace, "cairn.db"), NO_COLOR="1"
        )
        env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), str(ROOT)) if p)
        seed_sessions(env["CAIRN_DB"], workspace, ns.sessions)
        script = f"script:{workspace}/.bench-script.json"
        for _ in range(2):  # warm the OS caches
            timed([sys.executable, "-c", "pass"], env, workspace)
            timed([*CAIRN, "--help"], env, workspace)
        baseline = [timed([sys.executable, "-c", "pass"], env, workspace) for _ in range(ns.runs)]
        base = statistics.median(baseline)
        help_ = [timed([*CAIRN, "--help"], env, workspace) for _ in range(ns.runs)]
        sessions = [timed([*CAIRN, "sessions"], env, workspace) for _ in range(ns.runs)]
        prompt = [prompt_visible(env, workspace, script) for _ in range(ns.runs)]
        one_step = [
            child_cpu([*CAIRN, "-p", "hi", "--model", script], env, workspace) for _ in range(ns.runs)
        ]
        pass_cpu = [child_cpu([sys.executable, "-c", "pass"], env, workspace) for _ in range(ns.runs)]
        floor = [child_cpu([sys.executable, "-c", DEPENDENCIES], env, workspace) for _ in range(ns.runs)]
        print(f"cairn CLI startup ({ns.runs} runs each, {ns.sessions} sessions in the database)")
        report("python -c pass (baseline)", baseline, base, None)
        report("cairn --help", help_, base, 0.15)
        report("cairn sessions", sessions, base, 0.3)
        report("interactive prompt visible", prompt, base, 0.3)
        med = statistics.median(one_step)
        print(
            f"{'cairn -p, one scripted step':<28} CPU median {med * 1000:7.1f} ms  min {min(one_step) * 1000:7.1f} ms  "
            f"(python -c pass: {statistics.median(pass_cpu) * 1000:.1f} ms CPU)  target ≤ 0.50 s: "
            f"{'ok' if med <= 0.5 else 'OVER'}  (load average {os.getloadavg()[0]:.1f})"
        )
        print(
            f"{'  its dependencies alone':<28} CPU median {statistics.median(floor) * 1000:7.1f} ms  "
            f"min {min(floor) * 1000:7.1f} ms  (langgraph + SQLite checkpointer + messages)"
        )


if __name__ == "__main__":
    main()
