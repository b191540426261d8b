"""Prompt size and harness time over a 1,000-turn scripted session with compaction.

    .venv/bin/python tests/benchmarks/bench_compaction.py [--turns 1000] [--window 16000] [--repeat 5]

A scripted model (in process, no HTTP) reads 4 KB files one per turn.  For every model call it
records the prompt's size (tokens the way the scripted model reports them, i.e. words, and
cairn's own calibrated estimate) and when the call started and ended.  Printed:

- the curve of prompt tokens per call (every 50th call, and the maximum), against the window;
- harness time per cycle (wall time between two model calls minus the model's own time: the
  graph, the checkpoint, the transcript, token counting, compaction bookkeeping), as the median
  of each block of 100 cycles, and the ratio of the last block to the first (the same-run
  baseline).  Flat means about 1.0x.  Cycles that ran a compaction are reported apart (they
  include a summary call).
With ``--repeat N`` the whole session runs N times and block medians are the medians over runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pydantic import Field

from cairn import Session
from cairn.graph.models.script import is_summary_request
from cairn.graph.models.scripted import ScriptedChatModel

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa\n"


class RecordingModel(ScriptedChatModel):
    """The scripted model, timing each call and recording the prompt it got."""

    calls: list[dict[str, Any]] = Field(default_factory=list)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[override]
        started, cpu_started = time.perf_counter(), time.process_time()
        result = super()._generate(messages, stop, run_manager, **kwargs)
        ended, cpu_ended = time.perf_counter(), time.process_time()
        summary = bool(messages) and is_summary_request(messages[0].text)
        usage = result.generations[0].message.usage_metadata or {}
        self.calls.append(
            {
                "start": started,
                "end": ended,
                "cpu_start": cpu_started,
                "cpu_end": cpu_ended,
                "summary": summary,
                "tokens": usage.get("input_tokens", 0),
            }
        )
        return result


def run_once(turns: int, window: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-compaction-"))
    ws = tmp / "ws"
    ws.mkdir()
    for i in range(turns):  # distinct files: cairn pauses a run that repeats an identical call
        (ws / f"f{i:04d}.txt").write_text(WORDS * 70)
    script = [
        {"tool_calls": [{"name": "read_file", "args": {"file_path": f"f{i:04d}.txt"}, "id": f"r{i}"}]}
        for i in range(turns)
    ] + [{"content": "done"}]
    model = RecordingModel.from_turns(script)
    session = Session(ws, model=model, db=str(tmp / "cairn.db"), context_window=window, max_steps=turns + 10)
    result = session.send("read every file, one per turn")
    assert result.status == "done", result.error
    context = dict(session.state.get("context") or {})
    session.close()
    return model.calls, context


def cycles(calls: list[dict[str, Any]], clock: str = "") -> list[tuple[float, bool]]:
    """(harness seconds, whether a compaction happened) between consecutive main model calls;
    ``clock="cpu_"`` measures this process's CPU time instead of wall time."""
    start, end = f"{clock}start", f"{clock}end"
    out: list[tuple[float, bool]] = []
    previous_end: float | None = None
    summary_time = 0.0
    compacted = False
    for call in calls:
        if call["summary"]:
            summary_time += call[end] - call[start]
            compacted = True
            continue
        if previous_end is not None:
            out.append((call[start] - previous_end - summary_time, compacted))
        previous_end, summary_time, compacted = call[end], 0.0, False
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--window", type=int, default=16_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    block = max(1, min(100, args.turns // 3))
    per_block: dict[int, list[float]] = {}
    cpu_block: dict[int, list[float]] = {}
    compaction_cycles: list[float] = []
    for run in range(args.repeat):
        calls, context = run_once(args.turns, args.window)
        main_calls = [c for c in calls if not c["summary"]]
        if run == 0:
            tokens = [c["tokens"] for c in main_calls]
            print(
                f"prompt tokens per model call (window {args.window:,}; threshold 80% = {int(args.window * 0.8):,}):"
            )
            for i in range(0, len(tokens), 50):
                bar = "#" * int(60 * tokens[i] / args.window)
                print(f"  call {i:5d}: {tokens[i]:7,d} {bar}")
            print(
                f"  max {max(tokens):,} (<= window: {max(tokens) <= args.window}); "
                f"compactions {context.get('compactions', 0)}; summary calls {sum(c['summary'] for c in calls)}"
            )
        for clock, blocks in (("", per_block), ("cpu_", cpu_block)):
            series = cycles(calls, clock)
            for index in range(0, len(series) - block + 1, block):
                chunk = [t for t, compacted in series[index : index + block] if not compacted]
                blocks.setdefault(index // block, []).append(statistics.median(chunk))
        compaction_cycles += [t for t, compacted in cycles(calls) if compacted]
    print(
        f"\nharness time per cycle, median of each block of {block} cycles (median over {args.repeat} runs);"
        "\nwall time, and this process's CPU time (less sensitive to other load on the machine):"
    )
    wall = {i: statistics.median(v) for i, v in per_block.items()}
    cpu = {i: statistics.median(v) for i, v in cpu_block.items()}
    for index in sorted(wall):
        print(
            f"  cycles {index * block:5d}-{index * block + block - 1:5d}: wall {wall[index] * 1000:7.2f} ms "
            f"{wall[index] / wall[0]:5.2f}x   cpu {cpu[index] * 1000:7.2f} ms {cpu[index] / cpu[0]:5.2f}x"
        )
    last = max(wall)
    print(f"last block / first block: wall {wall[last] / wall[0]:.2f}x, cpu {cpu[last] / cpu[0]:.2f}x")
    if len(wall) > 2:  # the prompt reaches its working size during the first block
        print(
            f"last block / second block (steady state): wall {wall[last] / wall[1]:.2f}x, "
            f"cpu {cpu[last] / cpu[1]:.2f}x (flat is ~1.0x)"
        )
    if compaction_cycles:
        print(
            f"cycles with a compaction (summary call excluded): median {statistics.median(compaction_cycles) * 1000:.1f} ms "
            f"over {len(compaction_cycles)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
