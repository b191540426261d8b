"""Where the session and the nodes call in (small hook-in points, see docs/telemetry.md)."""

from __future__ import annotations

from typing import Any


def start_run(session: Any, context: Any) -> Any:
    """A ``RunRecorder`` for this run (its ``invoke_agent`` span opened), wired into the run's
    context (``context.telemetry``; tool events go through it); None when telemetry is off."""
    tele = getattr(session, "telemetry", None)
    if tele is None:
        return None
    from cairn.graph.core.telemetry.recorder import RunRecorder

    recorder = RunRecorder(tele, session)
    context.telemetry = recorder
    context.on_event = recorder.wrap(context.on_event)
    return recorder
