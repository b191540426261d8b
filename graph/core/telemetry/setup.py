"""Building the process's tracer and meter providers, once (OpenTelemetry is imported here only
when telemetry is on)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cairn.graph.core.telemetry.config import TelemetryConfig, parse_telemetry, telemetry_env

_lock = threading.Lock()
#: Set by ``configure()`` (Python, tests): used by every session of the process.
_configured: Any = None
#: Built from settings/environment, by config (a process sees one or two at most).
_built: dict[TelemetryConfig, Any] = {}


def configure(
    *,
    span_exporter: Any = None,
    metric_reader: Any = None,
    config: TelemetryConfig | None = None,
    log_content: bool | None = None,
    simple: bool = False,
) -> Any:
    """Turn telemetry on for this process with these exporters (default: OTLP/HTTP from
    ``config``).  ``simple``: export each span when it ends (no batching; tests)."""
    global _configured
    from cairn.graph.core.telemetry.instruments import Telemetry

    config = config or TelemetryConfig(enabled=True)
    if log_content is not None:
        config = TelemetryConfig(**{**config.__dict__, "log_content": log_content})
    with _lock:
        if _configured is not None:
            _configured.shutdown()
        _configured = Telemetry.build(
            config, span_exporter=span_exporter, metric_reader=metric_reader, simple=simple
        )
        return _configured


def disable() -> None:
    """Undo ``configure()`` and drop what settings built (each flushed and shut down)."""
    global _configured
    with _lock:
        for tele in [_configured, *_built.values()]:
            if tele is not None:
                tele.shutdown()
        _configured = None
        _built.clear()


def for_workspace(root: Path) -> Any:
    """The process's ``Telemetry`` for a session in ``root``, or None when telemetry is off."""
    if _configured is not None:
        return _configured
    env = telemetry_env()
    from cairn.graph.core.cost.config import settings_tables

    # The user's file only: a project's [telemetry] could send prompts and tool output (and
    # the headers' credentials) to an endpoint of the repository author's choosing.
    tables = settings_tables(root, "telemetry")[:1]
    if not env and not any(tables):
        return None
    config = parse_telemetry(tables, env)
    if not config.enabled:
        return None
    with _lock:
        if config not in _built:
            from cairn.graph.core.telemetry.instruments import Telemetry

            _built[config] = Telemetry.build(config)
        return _built[config]
