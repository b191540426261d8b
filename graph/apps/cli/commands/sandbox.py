"""``cairn sandbox check [--backend NAME] [--json]``: what the shell sandbox enforces on this machine.

Runs harmless probes under each working backend and profile (:mod:`cairn.graph.apps.cli.commands.sandbox_report`)
and prints a table: one row per guarantee, ``enforced``, ``not guaranteed -> asks`` or
``NOT ENFORCED``.  Exit code 0 when nothing is ``NOT ENFORCED``, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json

from cairn.graph.apps.cli.exits import ERROR


def run_sandbox(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cairn sandbox", description="The shell sandbox on this machine.")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser(
        "check",
        help="run harmless probes in each backend and profile; print what is enforced",
        description="Runs harmless probes (marker files, planted fake secrets, listeners on 127.0.0.1 "
        "and in a temporary HOME, counted sleepers) in a temporary workspace and HOME outside /tmp.",
    )
    check.add_argument(
        "--backend",
        choices=("all", "bwrap", "landlock"),
        default="all",
        help="the backend to probe (default: each one that works here)",
    )
    check.add_argument("--json", action="store_true", help="the report as JSON")
    ns = parser.parse_args(argv)
    from cairn.graph.apps.cli.commands.sandbox_report import BACKENDS, render, run_check

    report = run_check(BACKENDS if ns.backend == "all" else (ns.backend,))
    if ns.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(render(report)))
    return 0 if report["ok"] else ERROR
