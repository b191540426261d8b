"""The process's providers, tracer and metric instruments (imports OpenTelemetry)."""

from __future__ import annotations

import contextvars
import hashlib
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator

from cairn.graph.core.telemetry.config import TelemetryConfig

SCOPE = "cairn"
#: The trace id the next root span takes (a session's runs share one trace).
next_trace_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("cairn_next_trace", default=None)


def session_trace_id(session_id: str) -> int:
    """The trace id of a session: derived from the id of the session at the top of its
    sub-agent chain, so every run of it (in any process, after a crash, its sub-agents') is
    in one trace, with nothing more to store than the session id."""
    root = session_id.split("-sub-", 1)[0]
    value = int.from_bytes(hashlib.sha256(f"cairn-trace:{root}".encode()).digest()[:16], "big")
    return value or 1


class SessionIdGenerator(RandomIdGenerator):
    def generate_trace_id(self) -> int:
        wanted = next_trace_id.get()
        return wanted if wanted is not None else super().generate_trace_id()


class Telemetry:
    """A tracer, a meter and the instruments cairn records into."""

    def __init__(self, tracer_provider: Any, meter_provider: Any, config: TelemetryConfig) -> None:
        self.config = config
        self.log_content = config.log_content
        self.tracer_provider = tracer_provider
        self.meter_provider = meter_provider
        self.tracer = tracer_provider.get_tracer(SCOPE)
        meter = meter_provider.get_meter(SCOPE)
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Tokens used per model call"
        )
        self.duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="Duration of model calls"
        )
        self.tool_calls = meter.create_counter(
            "cairn.tool.calls", unit="{call}", description="Tool calls by tool and final lifecycle status"
        )

    @classmethod
    def build(
        cls,
        config: TelemetryConfig,
        *,
        span_exporter: Any = None,
        metric_reader: Any = None,
        simple: bool = False,
    ) -> Telemetry:
        resource = Resource.create({"service.name": config.service_name})
        tracer_provider = TracerProvider(resource=resource, id_generator=SessionIdGenerator())
        exporter = span_exporter if span_exporter is not None else _otlp_spans(config)
        processor = SimpleSpanProcessor(exporter) if simple else BatchSpanProcessor(exporter)
        tracer_provider.add_span_processor(processor)
        readers = []
        if metric_reader is not None:
            readers.append(metric_reader)
        elif config.metrics:
            from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

            readers.append(PeriodicExportingMetricReader(_otlp_metrics(config)))
        meter_provider = MeterProvider(resource=resource, metric_readers=readers)
        return cls(tracer_provider, meter_provider, config)

    def flush(self) -> None:
        self.tracer_provider.force_flush()
        self.meter_provider.force_flush()

    def shutdown(self) -> None:
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown()


def _otlp_spans(config: TelemetryConfig) -> Any:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = f"{config.endpoint}/v1/traces" if config.endpoint else None
    return OTLPSpanExporter(endpoint=endpoint, headers=dict(config.headers) or None)


def _otlp_metrics(config: TelemetryConfig) -> Any:
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    endpoint = f"{config.endpoint}/v1/metrics" if config.endpoint else None
    return OTLPMetricExporter(endpoint=endpoint, headers=dict(config.headers) or None)
