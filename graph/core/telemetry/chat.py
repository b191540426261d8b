"""The ``chat {model}`` span of one model call, and the GenAI metrics it records."""

from __future__ import annotations

import json
import time
from typing import Any

from opentelemetry.trace import SpanKind, Status, StatusCode

#: How much of a content attribute is exported (with ``log_content``).
CONTENT_LIMIT = 16_000
PROVIDERS = {"ChatOpenAI": "openai", "ScriptedChatModel": "cairn.scripted"}


def content(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text[:CONTENT_LIMIT]


class ModelCall:
    """A ``chat`` span under way; ``end(message)`` or ``fail(exc)`` closes it."""

    def __init__(self, recorder: Any, model: str, provider: str, prompt: list[Any]) -> None:
        self.recorder = recorder
        self.model = model
        self.provider = provider
        self.started = time.perf_counter()
        tele = recorder.tele
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model,
            "gen_ai.provider.name": provider,
            "gen_ai.conversation.id": recorder.session_id,
        }
        if tele.log_content and prompt:
            last = prompt[-1]
            attributes["gen_ai.input.messages"] = content(
                [{"role": getattr(last, "type", "user"), "content": getattr(last, "text", str(last))}]
            )
        self.span = tele.tracer.start_span(
            f"chat {model}", kind=SpanKind.CLIENT, context=recorder.context, attributes=attributes
        )

    def _metric_attributes(self, response_model: str | None) -> dict[str, Any]:
        out = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": self.model,
            "gen_ai.provider.name": self.provider,
        }
        if response_model:
            out["gen_ai.response.model"] = response_model
        return out

    def end(self, message: Any, pricing: Any = None) -> None:
        """Close the span with the reply's model, usage and (when priced) cost."""
        from cairn.graph.core.cost.ledger import usage_tokens
        from cairn.graph.core.cost.prices import Pricing

        tele, span = self.recorder.tele, self.span
        meta = getattr(message, "response_metadata", None) or {}
        usage = getattr(message, "usage_metadata", None) or {}
        response_model = meta.get("model_name") or meta.get("model")
        if response_model:
            span.set_attribute("gen_ai.response.model", str(response_model))
        if meta.get("finish_reason"):
            span.set_attribute("gen_ai.response.finish_reasons", [str(meta["finish_reason"])])
        tokens_in, tokens_out = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
        span.set_attribute("gen_ai.usage.input_tokens", tokens_in)
        span.set_attribute("gen_ai.usage.output_tokens", tokens_out)
        cached = (usage.get("input_token_details") or {}).get("cache_read")
        if cached:
            span.set_attribute("gen_ai.usage.cache_read.input_tokens", int(cached))
        price = (pricing or Pricing()).price(str(response_model or self.model))
        if price is not None:
            span.set_attribute("cairn.cost.usd", price.cost(*usage_tokens(usage)))
        calls = getattr(message, "tool_calls", None) or []
        span.set_attribute("cairn.tool_calls", len(calls))
        if tele.log_content:
            span.set_attribute(
                "gen_ai.output.messages",
                content(
                    [{"role": "assistant", "content": getattr(message, "text", ""), "tool_calls": calls}]
                ),
            )
        span.end()
        attrs = self._metric_attributes(str(response_model) if response_model else None)
        tele.duration.record(time.perf_counter() - self.started, attrs)
        tele.token_usage.record(tokens_in, {**attrs, "gen_ai.token.type": "input"})
        tele.token_usage.record(tokens_out, {**attrs, "gen_ai.token.type": "output"})

    def fail(self, exc: BaseException) -> None:
        self.span.set_status(Status(StatusCode.ERROR, str(exc)[:300]))
        self.span.set_attribute("error.type", type(exc).__name__)
        self.span.end()
        attrs = {**self._metric_attributes(None), "error.type": type(exc).__name__}
        self.recorder.tele.duration.record(time.perf_counter() - self.started, attrs)
