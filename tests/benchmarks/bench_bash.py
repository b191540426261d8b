"""Per-command overhead of the ``bash`` tool beside ``subprocess.run(["bash", "-c", "true"])``.

    .venv/bin/python tests/benchmarks/bench_bash.py [--repeats 15] [--files 13000] [--extra-procs 1000]

Printed per place (a plain directory, a git repository with ``--files`` committed files):

- wall and CPU (this process, all threads) per ``true``, read-only (the policy said LOW) and
  writing (the policy did not: the changed-files snapshot runs), beside the same-run baseline;
- how many ``git status`` runs a writing command costs;
- ``true`` in a fresh process, then again with ``--extra-procs`` idle processes running beside
  it on the host, to show the cost does not depend on how many processes the machine runs.

Variants (``--variant``): ``plain`` runs commands as a bare tool call does; ``sandboxed`` runs
them the way the graph does for calls that need no approval: read-only commands in the
``read-only`` OS sandbox, writing ones in ``workspace-write`` (bwrap or Landlock, whichever this
machine has; the variant refuses to run without one).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cairn.tools.base import ToolContext  # noqa: E402


@dataclass
class Variant:
    tool: Any
    close: Callable[[], None]
    #: The contexts of a read-only (LOW) and a writing (HIGH) call.
    read_only: ToolContext
    writing: ToolContext


def _tool(root: Path) -> tuple[Any, Callable[[], None]]:
    from cairn.tools.services import ToolServices
    from cairn.tools.shell.bash import BashTool
    from cairn.tools.workspace import Workspace

    services = ToolServices(Workspace(root))
    return BashTool(Workspace(root), services), services.close


def plain(root: Path) -> Variant:
    tool, close = _tool(root)
    return Variant(tool, close, ToolContext(risk="LOW"), ToolContext(risk="HIGH"))


def sandboxed(root: Path) -> Variant:
    from cairn.policy.sandbox_paths import hidden_paths, protected_in_workspace
    from cairn.tools.shell.sandbox import SandboxSpec, detect_backend

    status = detect_backend()
    if not status.available:
        sys.exit(f"no sandbox backend on this machine: {status.problem}")

    def spec(profile: str) -> SandboxSpec:
        read_only, placeholders = protected_in_workspace(str(root))
        return SandboxSpec.for_workspace(
            profile,
            str(root),
            read_only_paths=read_only,
            placeholder_dirs=placeholders,
            hidden_paths=hidden_paths(),
        )

    tool, close = _tool(root)
    low = ToolContext(risk="LOW", sandbox=spec("read-only"))
    high = ToolContext(risk="HIGH", sandbox=spec("workspace-write"))
    return Variant(tool, close, low, high)


VARIANTS: dict[str, Callable[[Path], Variant]] = {"plain": plain, "sandboxed": sandboxed}


def checked(result: Any) -> Any:
    """A failed command (a sandbox that cannot start) must not be timed as a fast one."""
    if not result.ok or "Exit code: 0" not in result.output:
        raise SystemExit(f"the command failed: {result.error or result.output}")
    return result


def interleaved(fns: dict[str, Callable[[], Any]], repeats: int) -> dict[str, tuple[float, float]]:
    """name -> (median wall ms, median CPU ms of this process), the functions run round-robin
    (one warm-up each) so a busy machine slows them alike."""
    for fn in fns.values():
        fn()
    walls: dict[str, list[float]] = {k: [] for k in fns}
    cpus: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            walls[name].append(time.perf_counter() - w0)
            cpus[name].append(time.process_time() - c0)
    return {k: (statistics.median(walls[k]) * 1000, statistics.median(cpus[k]) * 1000) for k in fns}


def make_repo(root: Path, files: int) -> None:
    git = ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    # No detached `git gc --auto` after committing 13,000 loose objects: it would compete with the
    # timed commands and write into the repository after the bench has deleted it.
    subprocess.run([*git, "config", "gc.auto", "0"], check=True)
    subprocess.run([*git, "config", "maintenance.auto", "false"], check=True)
    for i in range(files):
        d = root / f"pkg{i // 500}"
        d.mkdir(exist_ok=True)
        (d / f"mod{i}.py").write_text(f"x = {i}\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "files"], check=True)
    (root / "pkg0" / "mod0.py").write_text("x = 'dirty'\n")  # one dirty file, as in real work


def count_status(tool: Any) -> Callable[[], int]:
    """Patch the tool's git runner to count ``git status`` runs; returns a reader."""
    changes = tool.services.shell.changes
    original = changes._run
    calls = {"status": 0}

    def counting(*args: str) -> Any:
        if "status" in args:
            calls["status"] += 1
        return original(*args)

    changes._run = counting
    return lambda: calls["status"]


def spawn_idle(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen(["sleep", "600"]) for _ in range(n)]


def run_place(name: str, root: Path, variant: str, repeats: int) -> None:
    v = VARIANTS[variant](root)
    tool, close = v.tool, v.close
    # As a session does when its run starts: the first full snapshot, in the background.
    tool.services.shell.changes.warm()
    tool.services.shell.changes._join_warmup()
    warmed = tool.services.shell.changes._last is not None  # False outside a git work tree
    statuses = count_status(tool)
    try:
        low, high = v.read_only, v.writing
        before = statuses()
        res = interleaved(
            {
                "base": lambda: subprocess.run(["bash", "-c", "true"], check=True),
                "ro": lambda: checked(tool.execute({"command": "true"}, low)),
                "wr": lambda: checked(tool.execute({"command": "true"}, high)),
            },
            repeats,
        )
        (base_wall, base_cpu), (ro_wall, ro_cpu), (wr_wall, wr_cpu) = res["base"], res["ro"], res["wr"]
        per_write = (statuses() - before) / (repeats + 1)
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"\n[{name}, {variant}] ms per command, median of {repeats} interleaved (load avg {load})")
        print(f"  subprocess.run(bash -c true): wall {base_wall:6.1f}  cpu {base_cpu:6.1f}")
        print(
            f"  bash tool, read-only:         wall {ro_wall:6.1f}  cpu {ro_cpu:6.1f}   "
            f"x{ro_wall / base_wall:.2f} wall"
        )
        print(
            f"  bash tool, writing:           wall {wr_wall:6.1f}  cpu {wr_cpu:6.1f}   "
            f"x{wr_wall / base_wall:.2f} wall, {per_write:.2f} git status per command"
            + (" (+1 at session start, in the background)" if warmed else "")
        )
    finally:
        close()


def host_load(root: Path, variant: str, repeats: int, extra: int) -> None:
    """``true`` measured in a child process, with and without ``extra`` idle processes beside it.

    The idle processes are the bench's children, not the measuring process's, so they are
    other processes on the host (a subreaper's own tree would otherwise contain them).
    """

    def child() -> dict:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(root), "--variant", variant, "--repeats", str(repeats)],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    quiet = child()
    procs = spawn_idle(extra)
    try:
        time.sleep(0.5)
        busy = child()
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
    print(f"\n[host load, {variant}] bash tool `true` (read-only) in a fresh process, median of {repeats}")
    for label, doc in (
        (f"{len(list_procs())} processes on the host", quiet),
        (f"+{extra} idle processes", busy),
    ):
        print(
            f"  {label:<32} wall {doc['wall']:6.1f}  cpu {doc['cpu']:5.1f}  "
            f"(subprocess.run: wall {doc['base']:5.1f}, x{doc['wall'] / doc['base']:.2f})"
        )
    print(f"  cpu with/without the extra processes: x{busy['cpu'] / quiet['cpu']:.2f}")


def list_procs() -> list[str]:
    return [n for n in os.listdir("/proc") if n.isdigit()] if os.path.isdir("/proc") else []


def child_measure(root: Path, variant: str, repeats: int) -> None:
    v = VARIANTS[variant](root)
    tool, close = v.tool, v.close
    try:
        low = v.read_only
        res = interleaved(
            {
                "base": lambda: subprocess.run(["bash", "-c", "true"], check=True),
                "tool": lambda: checked(tool.execute({"command": "true"}, low)),
            },
            repeats,
        )
        base, (wall, cpu) = res["base"][0], res["tool"]
    finally:
        close()
    print(json.dumps({"base": base, "wall": wall, "cpu": cpu}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--files", type=int, default=13_000)
    ap.add_argument("--extra-procs", type=int, default=1000)
    ap.add_argument("--variant", default="plain", choices=sorted(VARIANTS))
    args = ap.parse_args()
    if args.child:
        child_measure(Path(args.child), args.variant, args.repeats)
        return
    tmp = Path(tempfile.mkdtemp(prefix="cairn-bench-bash-"))
    try:
        plain = tmp / "plain"
        plain.mkdir()
        run_place("plain directory", plain, args.variant, args.repeats)
        if args.extra_procs:
            host_load(plain, args.variant, args.repeats, args.extra_procs)
        repo = tmp / "repo"
        repo.mkdir()
        t0 = time.perf_counter()
        make_repo(repo, args.files)
        print(f"\n(made a git repository of {args.files} files in {time.perf_counter() - t0:.1f} s)")
        run_place(f"git repo, {args.files} files", repo, args.variant, args.repeats)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if os.environ.get("CAIRN_BENCH_DEBUG"):
        print(tmp)


if __name__ == "__main__":
    main()
