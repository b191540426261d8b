"""``cairn sandbox check``: what each sandbox backend really enforces on this machine, measured.

For every working backend (bubblewrap, Landlock) and profile (``read-only``,
``workspace-write``) it runs the probes of ``sandbox_probes`` (one per guarantee of
:data:`cairn.tools.shell.sandbox.guarantees.GUARANTEES`), and the same probes without a sandbox
as the control.

Each cell is ``enforced`` (the probe was refused), ``not guaranteed -> asks`` (it was not, and the
backend lists the guarantee as missing, so the policy asks instead of running unattended), or
``NOT ENFORCED`` (it was not, and nothing asks: a bug).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from cairn.graph.apps.cli.commands import sandbox_probes as probes
from cairn.tools.shell.sandbox.guarantees import GUARANTEES

BACKENDS = ("bwrap", "landlock")
PROFILES = ("read-only", "workspace-write")
ENFORCED, ASKS, NOT_ENFORCED = "enforced", "not guaranteed -> asks", "NOT ENFORCED"
#: The control (the same probe without a sandbox) was refused too: the probe proves nothing here.
INCONCLUSIVE = "probe inconclusive"


@dataclass
class BackendReport:
    name: str
    available: bool
    problem: str | None = None
    #: profile -> guarantees the backend says it lacks here (the policy asks for those).
    missing: dict[str, list[str]] = field(default_factory=dict)
    #: profile -> guarantee -> ENFORCED / ASKS / NOT_ENFORCED.
    results: dict[str, dict[str, str]] = field(default_factory=dict)
    #: profile -> guarantee -> what the probe saw (when it was not refused).
    details: dict[str, dict[str, str]] = field(default_factory=dict)


def run_check(backends: tuple[str, ...] = BACKENDS, *, base_dir: str | None = None) -> dict[str, Any]:
    """Probe each backend in ``backends``; the report as plain data (``--json`` prints it)."""
    from cairn.tools.shell.sandbox.detect import detect_backend, missing_guarantees

    reports = []
    with probes.probe_place(base_dir) as place:  # the same probes without a sandbox must get through
        control = {
            g: refused is False
            for g, (refused, _) in probes.probe_all(place, detect_backend("none"), "off").items()
        }
    for name in backends:
        status = detect_backend(name)
        report = BackendReport(name, status.available, status.problem)
        if status.available:
            report.missing = {p: list(g) for p, g in missing_guarantees(name).items()}
            for profile in PROFILES:
                with probes.probe_place(base_dir) as place:
                    seen = probes.probe_all(place, status, profile)
                gaps = set(report.missing.get(profile, ()))
                report.results[profile] = {
                    g: INCONCLUSIVE
                    if not control[g] or refused is None
                    else ENFORCED
                    if refused
                    else (ASKS if g in gaps else NOT_ENFORCED)
                    for g, (refused, _) in seen.items()
                }
                report.details[profile] = {g: what for g, (refused, what) in seen.items() if not refused}
        reports.append(report)
    return {
        "guarantees": GUARANTEES,
        "control": control,
        "backends": {r.name: dataclasses.asdict(r) for r in reports},
        "ok": all(
            cell in (ENFORCED, ASKS)
            for r in reports
            for cells in r.results.values()
            for cell in cells.values()
        ),
    }


def render(report: dict[str, Any]) -> list[str]:
    """The report as a table for people: one row per guarantee, one column per backend/profile."""
    columns = [
        (name, profile)
        for name, data in report["backends"].items()
        if data["available"]
        for profile in PROFILES
    ]
    head = ["guarantee", "no sandbox (control)", *(f"{name} {profile}" for name, profile in columns)]
    rows = [
        [
            text,
            "gets through" if report["control"][g] else "refused",
            *(report["backends"][name]["results"][profile][g] for name, profile in columns),
        ]
        for g, text in report["guarantees"].items()
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    for name, data in report["backends"].items():
        if not data["available"]:
            lines.append(f"{name}: not available here ({data['problem']})")
            continue
        missing = sorted({g for gs in data["missing"].values() for g in gs})
        if missing:
            lines.append(f"{name}: not guaranteed here, so the policy asks instead: {', '.join(missing)}")
        else:
            lines.append(f"{name}: every guarantee holds here")
        for profile, details in data["details"].items():
            for g, what in details.items():
                lines.append(f"  {profile} {g}: {what}")
    return lines
