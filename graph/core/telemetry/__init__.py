"""OpenTelemetry traces and metrics of runs, model calls and tool calls (issue 34).

Off unless configured (``[telemetry]`` settings or the standard ``OTEL_*`` variables, see
``config``); when off nothing here imports OpenTelemetry.  ``configure()`` sets it up from
Python (tests pass an in-memory exporter); sessions find it with ``for_workspace``.
"""

from cairn.graph.core.telemetry.config import TelemetryConfig, parse_telemetry
from cairn.graph.core.telemetry.setup import configure, disable, for_workspace

__all__ = ["TelemetryConfig", "configure", "disable", "for_workspace", "parse_telemetry"]
