"""The ``[telemetry]`` settings and the ``OTEL_*`` environment, parsed without side effects.

```toml
[telemetry]
enabled = true                          # default: on when OTEL_EXPORTER_OTLP_*ENDPOINT is set
endpoint = "http://127.0.0.1:4318"      # OTLP/HTTP; default: the OTEL_EXPORTER_OTLP_* variables
headers = { "x-api-key" = "..." }
service_name = "cairn"                  # default: OTEL_SERVICE_NAME, else "cairn"
log_content = false                     # prompts, replies, tool arguments and results
metrics = true
```

``OTEL_SDK_DISABLED=true`` turns it off whatever the settings say; ``enabled = false`` turns it
off whatever the environment says.  Prompt and tool contents are exported only with
``log_content = true`` (or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cairn.errors import ConfigError

_KEYS = {"enabled", "endpoint", "headers", "service_name", "log_content", "metrics"}
_TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class TelemetryConfig:
    enabled: bool = False
    endpoint: str | None = None
    headers: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    service_name: str = "cairn"
    log_content: bool = False
    metrics: bool = True


def telemetry_env() -> dict[str, str]:
    """The ``OTEL_*`` variables (the one place this package reads the environment)."""
    return {k: v for k, v in os.environ.items() if k.startswith("OTEL_")}


def parse_telemetry(tables: Iterable[Mapping[str, Any] | None], env: Mapping[str, str]) -> TelemetryConfig:
    """One config from the ``[telemetry]`` table of each source (user, project: later wins) and
    the ``OTEL_*`` environment.  Raises ``ValueError`` naming a bad key."""
    merged: dict[str, Any] = {}
    for table in tables:
        if not table:
            continue
        unknown = set(table) - _KEYS
        if unknown:
            raise ConfigError(f"[telemetry]: unknown keys {sorted(unknown)}")
        merged.update(table)
    for key in ("enabled", "log_content", "metrics"):
        if key in merged and not isinstance(merged[key], bool):
            raise ConfigError(f"[telemetry] {key} must be true or false")
    headers = merged.get("headers") or {}
    if not isinstance(headers, Mapping) or not all(isinstance(v, str) for v in headers.values()):
        raise ConfigError("[telemetry] headers must be a table of strings")
    from_env = (
        any(env.get(name) for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
        or env.get("OTEL_TRACES_EXPORTER", "").lower() == "otlp"
    )
    enabled = merged.get("enabled", from_env or bool(merged.get("endpoint")))
    if env.get("OTEL_SDK_DISABLED", "").lower() in _TRUE:
        enabled = False
    content = merged.get(
        "log_content", env.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "").lower() in _TRUE
    )
    return TelemetryConfig(
        enabled=bool(enabled),
        endpoint=str(merged["endpoint"]).rstrip("/") if merged.get("endpoint") else None,
        headers=tuple(sorted((str(k), v) for k, v in headers.items())),
        service_name=str(merged.get("service_name") or env.get("OTEL_SERVICE_NAME") or "cairn"),
        log_content=bool(content),
        metrics=bool(merged.get("metrics", True)),
    )
