"""Hook overhead per tool call (issue 32: ≤ 5 ms when none are configured).

    .venv/bin/python tests/benchmarks/bench_hooks.py [--turns 200] [--repeats 3]

Runs ``bench_graph``'s session (N turns of one LOW tool call with a 2 KB result, instant model,
SQLite) with: no hooks; hooks configured for another tool only (the matcher is checked, nothing
runs); a Python ``PreToolUse`` + ``PostToolUse`` hook on every call (journaled); a command hook
(``true``) on every call; and ``bench_graph``'s plain LangGraph baseline — all in the same run.
Prints the median tool-cycle time of each and its difference from "no hooks".  On a checkout
without hooks (``Session`` has no ``hooks=``), only "no hooks" and the baseline are measured:
copy this file and ``bench_graph.py`` outside both checkouts to compare them (README there).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_graph as bg


def run(n: int, tmp: Path, name: str, *, settings: str = "", hooks: Any = None) -> list[float]:
    from cairn import Session
    from cairn.tools.workspace import Workspace

    home = tmp / f"home-{name}"
    home.mkdir()
    (home / "settings.toml").write_text(settings)
    os.environ["CAIRN_HOME"] = str(home)
    ws = tmp / f"ws-{name}"
    ws.mkdir()
    w = Workspace(ws)
    extra = {"hooks": hooks} if hooks is not None else {}
    session = Session(
        ws,
        model=bg.InstantModel(bg.turns(n)),
        db=str(tmp / f"{name}.db"),
        tools=[bg.BlobTool(w), bg.GateTool(w)],
        max_steps=10_000,
        **extra,
    )
    stamps: list[float] = []

    def on_event(kind: str, payload: dict) -> None:
        if kind == "tool_end":
            stamps.append(time.perf_counter())

    result = session.send("go", on_event=on_event)
    session.close()
    assert result.status == "done", result.error
    return [b - a for a, b in itertools.pairwise(stamps)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-hooks-only", action="store_true", help="measure only 'no hooks' and the baseline")
    args = ap.parse_args()
    from cairn import Session

    has_hooks = "hooks" in inspect.signature(Session.__init__).parameters
    cases: list[tuple[str, dict[str, Any]]] = [("no hooks", {})]
    if has_hooks and not args.no_hooks_only:
        cases += [
            (
                "hooks for another tool",
                {"settings": '[[hooks.PreToolUse]]\nmatcher = "gate"\ncommand = "true"\n'},
            ),
            (
                "python Pre+Post hook",
                {"hooks": {"PreToolUse": lambda e: None, "PostToolUse": lambda e: None}},
            ),
            (
                "command hook (true)",
                {"settings": '[[hooks.PreToolUse]]\nmatcher = "blob"\ncommand = "true"\n'},
            ),
        ]
    results: dict[str, list[float]] = {name: [] for name, _ in [*cases, ("langgraph baseline", {})]}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for repeat in range(args.repeats):  # round-robin, so a slow moment hits every case alike
            for index, (name, kwargs) in enumerate(cases):
                sub = tmp / f"r{repeat}-{index}"
                sub.mkdir()
                results[name].append(bg.median_ms(run(args.turns, sub, name.replace(" ", "_"), **kwargs)))
            sub = tmp / f"r{repeat}-base"
            sub.mkdir()
            results["langgraph baseline"].append(bg.median_ms(bg.run_baseline(args.turns, sub)["cycles"]))
    base = statistics.median(results["no hooks"])
    print(f"median tool-cycle time over {args.turns} turns, median of {args.repeats} runs:")
    for name, values in results.items():
        value = statistics.median(values)
        delta = (
            "" if name in ("no hooks", "langgraph baseline") else f"  ({value - base:+.2f} ms vs no hooks)"
        )
        print(f"  {name:<24} {value:7.2f} ms{delta}")
    if not has_hooks:
        print("  (this checkout has no hooks: only 'no hooks' and the baseline were measured)")


if __name__ == "__main__":
    main()
