"""What the OS sandbox adds to a command: ``true`` through the bash tool with and without it.

Run: ``.venv/bin/python tests/benchmarks/bench_sandbox.py [REPEATS]`` (default 21).  One
session; the three variants are interleaved round by round so machine load hits them alike;
medians.  The specs are the ones the graph builds (protected paths, hidden secret locations).
The target is at most ~15 ms added per command (issue 26: the deny-by-default profile at
most +25 ms over the sandbox before it).  "workspace-write + network" is the same command
granted a domain (issue 35: the egress proxy's lane and bridge add at most 20 ms to a command
that uses no network); ``--throughput`` also measures a 50 MB download through the proxy
against the same download made directly (issue 35: at least 50 %).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time

from cairn.policy.sandbox_paths import hidden_paths, protected_in_workspace
from cairn.tools.base import RiskLevel, ToolContext
from cairn.tools.services import ToolServices
from cairn.tools.shell.bash import BashTool
from cairn.tools.shell.sandbox import SandboxSpec, detect_backend
from cairn.tools.workspace import Workspace


def spec(profile: str, root: str) -> SandboxSpec:
    """The spec the graph builds (home hidden, credential files, process bound) when it can,
    else the older one (for a "before" run on a tree without ``build_spec``)."""
    try:
        from cairn.graph.core.sandbox_setup import build_spec
        from cairn.policy.sandbox import SandboxSettings
    except ImportError:
        read_only, placeholders = protected_in_workspace(root)
        return SandboxSpec.for_workspace(
            profile,
            root,
            read_only_paths=read_only,
            placeholder_dirs=placeholders,
            hidden_paths=hidden_paths(),
        )
    return build_spec(profile, root, SandboxSettings())


def main(repeats: int) -> None:
    started = time.perf_counter()
    status = detect_backend()
    print(
        f"backend: {status.name} (detected in {(time.perf_counter() - started) * 1000:.1f} ms, once per process)"
    )
    if not status.available:
        print(f"no sandbox backend: {status.problem}")
        return
    root = os.path.realpath(tempfile.mkdtemp(prefix="cairn-bench-sandbox-"))
    os.makedirs(os.path.join(root, ".git", "hooks"))
    ws = Workspace(root)
    services = ToolServices(ws)
    tool = BashTool(ws, services)
    variants = {
        "no sandbox": None,
        "read-only": spec("read-only", root),
        "workspace-write": spec("workspace-write", root),
    }
    if status.name == "bwrap":
        import dataclasses

        variants["workspace-write + network"] = dataclasses.replace(
            spec("workspace-write", root), allowed_domains=("index.test",)
        )
    times: dict[str, list[float]] = {name: [] for name in variants}
    try:
        for sandbox in variants.values():  # warm up each path once
            assert tool.execute({"command": "true"}, ToolContext(risk=RiskLevel.LOW, sandbox=sandbox)).ok
        for _ in range(repeats):
            for name, sandbox in variants.items():
                ctx = ToolContext(risk=RiskLevel.LOW, sandbox=sandbox)
                t0 = time.perf_counter()
                result = tool.execute({"command": "true"}, ctx)
                times[name].append(time.perf_counter() - t0)
                assert result.ok, result.error
        raw = raw_bwrap(root, repeats) if status.name == "bwrap" else None
    finally:
        services.close()
        shutil.rmtree(root, ignore_errors=True)
    report(f"`true` through the bash tool, median of {repeats} (interleaved):", times, "no sandbox")
    if raw is not None:
        report(f"the bwrap launch alone (no cairn), median of {repeats}:", raw, "true")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


def report(title: str, times: dict[str, list[float]], baseline: str) -> None:
    base = statistics.median(times[baseline]) * 1000
    print(title)
    for name, values in times.items():
        med = statistics.median(values) * 1000
        extra = "" if name == baseline else f"  +{med - base:.1f} ms  ({med / base:.2f} x)"
        print(f"  {name:16s} {med:6.1f} ms{extra}")


def raw_bwrap(root: str, repeats: int) -> dict[str, list[float]]:
    """``bwrap ARGS -- /bin/true`` with the read-only profile's arguments, beside ``/bin/true``."""
    import subprocess

    from cairn.tools.shell.sandbox import Private
    from cairn.tools.shell.sandbox.bwrap import BwrapBackend

    scratch = tempfile.mkdtemp(prefix="cairn-bench-private-")
    private = Private(*(os.path.join(scratch, d) for d in ("init", "cwd", "tmp")))
    for path in private.__dict__.values():
        os.mkdir(path)
    launch = BwrapBackend().launch(spec("read-only", root), cwd=root, private=private)
    variants = {"true": ["/bin/true"], "bwrap true": [*launch.argv_prefix[:-3], "--", "/bin/true"]}
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(repeats):
        for name, argv in variants.items():
            t0 = time.perf_counter()
            fds = launch.pass_fds if name != "true" else ()  # bwrap's --seccomp FD, read anew
            for fd in fds:
                os.lseek(fd, 0, os.SEEK_SET)
            subprocess.run(argv, check=True, pass_fds=fds)
            times[name].append(time.perf_counter() - t0)
    if launch.cleanup is not None:
        launch.cleanup()
    shutil.rmtree(scratch, ignore_errors=True)
    return times


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]) if args else 21)
    if "--throughput" in sys.argv:
        from bench_egress_throughput import main as throughput

        throughput()
