"""Rewind snapshots on a 10k-file tree, beside ``git status`` in the same run.

    .venv/bin/python tests/benchmarks/bench_snapshot.py [--files 10000] [--repeat 7]

Builds a git repository of ``--files`` small files (100 per directory), then times,
interleaved and as medians of ``--repeat`` runs after a warm-up:

- ``git status --porcelain`` in the person's repository (the baseline: one stat per file);
- a shadow snapshot of the unchanged tree (what cairn does before every file-changing call);
- a snapshot after one file changed, and after 100 files changed;
- a code rewind of one changed file (plan + restore + the after-snapshot).

Also prints the one-time cost of the first snapshot of a fresh shadow repository and how
big the shadow repository is. Not collected by pytest; ratios are reported, not asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cairn.checkpoints.code_rewind import plan_restore  # noqa: E402
from cairn.checkpoints.restore import apply_ops  # noqa: E402
from cairn.checkpoints.shadow_repo import ShadowRepo  # noqa: E402

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
GIT_ENV |= {"GIT_COMMITTER_EMAIL": "b@b", "GIT_OPTIONAL_LOCKS": "0"}
# No detached `git gc --auto` after the big commit: it would run beside the timed snapshots.
GIT_ENV |= {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gc.auto", "GIT_CONFIG_VALUE_0": "0"}


def build(root: Path, files: int) -> Path:
    ws = root / "ws"
    for index in range(files):
        folder = ws / f"pkg{index // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{index % 100:02d}.py").write_text(f"VALUE = {index}\n" + "# filler line\n" * 30)
    (ws / ".gitignore").write_text("build/\n")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
        subprocess.run(["git", *cmd], cwd=ws, env=GIT_ENV, check=True)
    return ws


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    ns = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = build(root, ns.files)
        repo = ShadowRepo(root / "state" / "shadow", ws, index_name="bench")
        first = timed(repo.snapshot)

        def status() -> object:
            return subprocess.run(["git", "status", "--porcelain"], cwd=ws, env=GIT_ENV, capture_output=True)

        status()
        repo.snapshot()
        samples: dict[str, list[float]] = {
            "git status": [],
            "snapshot, unchanged": [],
            "snapshot, 1 changed": [],
        }
        samples |= {"snapshot, 100 changed": [], "rewind of 1 file": []}
        target = ws / "pkg000" / "mod00.py"
        for round_ in range(ns.repeat):
            samples["git status"].append(timed(status))
            samples["snapshot, unchanged"].append(timed(repo.snapshot))
            target.write_text(f"changed {round_}\n")
            samples["snapshot, 1 changed"].append(timed(repo.snapshot))
            for index in range(100):
                (ws / f"pkg{index:03d}" / "mod01.py").write_text(f"round {round_}\n")
            samples["snapshot, 100 changed"].append(timed(repo.snapshot))
            before = repo.snapshot()
            target.write_text("rewind me\n")

            def rewind(before: object = before) -> None:
                now = repo.snapshot()
                plan = plan_restore(repo, before, now, later=[])
                apply_ops(repo, plan.ops)
                repo.snapshot()

            samples["rewind of 1 file"].append(timed(rewind))
        base = median(samples["git status"])
        print(
            f"{ns.files} files, median of {ns.repeat} runs (ms); first snapshot of a fresh repo: {first:.0f} ms"
        )
        for name, values in samples.items():
            print(f"  {name:<24} {median(values):8.1f} ms   {median(values) / base:5.2f} × git status")
        size = sum(p.stat().st_size for p in (root / "state").rglob("*") if p.is_file())
        print(f"  shadow repository size: {size / 1e6:.1f} MB (objects are shared across snapshots)")


if __name__ == "__main__":
    main()
