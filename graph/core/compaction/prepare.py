"""The reasoning node's side of compaction: build the prompt, or ask for a compaction first.

``reasoning`` calls ``prepare_prompt`` before its model call and ``after_model`` /
``on_model_error`` after it; everything about budgets stays here.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from cairn.graph.core.compaction import tokens
from cairn.graph.core.compaction.plan import plan_cut
from cairn.graph.core.compaction.view import elide, read_view
from cairn.graph.core.prompts import with_session_context
from cairn.graph.core.state import TERMINAL_STATUSES

_LIMIT_RE = re.compile(r"maximum context length is (\d+)")
#: Past this share of the limit, the exact tokenizer (if installed) replaces the estimate.
EXACT_FROM = 0.5


@dataclass
class Prepared:
    """A prompt ready to send, or (``compact`` set) a compaction to run first."""

    messages: list[BaseMessage]
    context: dict[str, Any]
    tokens: int = 0
    raw: int = 0
    exact: bool = False
    compact: dict[str, Any] | None = None


def protected_ids(state: Any) -> set[str]:
    """Calls that must survive compaction untouched: pending, awaiting approval, interrupted."""
    return {
        c.get("call_id")
        for c in [*(state.get("pending_tool_calls") or []), *(state.get("completed_tool_calls") or [])]
        if c.get("status", "pending") not in TERMINAL_STATUSES
    }


def count(budget: Any, messages: list[BaseMessage], context: dict[str, Any]) -> tuple[int, int, bool]:
    """(calibrated tokens, raw count, whether the exact tokenizer counted)."""
    raw = tokens.estimate(messages, budget.schema_chars)
    calibrated = int(raw * float(context.get("calibration", 1.0)))
    if calibrated >= budget.limit * EXACT_FROM:
        encoding = tokens.encoding_for(budget.model_name)
        if encoding is not None:
            raw = tokens.exact_count(encoding, messages, budget.schema_chars)
            return int(raw * float(context.get("calibration_exact", 1.0))), raw, True
    return calibrated, raw, False


def request(kind: str, focus: str | None = None) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex[:16], "kind": kind, "focus": focus}


def prepare_prompt(state: Any, ctx: Any, head: str | None, system: list[BaseMessage]) -> Prepared:
    context = dict(state.get("context") or {})
    view = read_view(ctx.store, ctx.thread_id, head, context)
    session = getattr(ctx, "session_context", None)

    def sent() -> list[BaseMessage]:  # workspace, date, memory go atop the first user message
        return system + with_session_context(view.messages(), session)

    messages = sent()
    budget = getattr(ctx, "budget", None)
    if budget is None:
        return Prepared(messages, context)
    budget = budget.adjusted(context)
    total, raw, exact = count(budget, messages, context)
    if total > budget.elide_limit:
        scale = total / max(raw, 1)
        sizes = [int(tokens.estimate_message(m) * scale) for m in view.body]
        cut = plan_cut(view.body, sizes, budget.keep_tokens(), protected_ids(state))
        if cut is not None and view.body[cut].id != context.get("elide_before"):
            context["elide_before"] = view.body[cut].id
            view.body = elide(view.body, context["elide_before"])
            messages = sent()
            total, raw, exact = count(budget, messages, context)
    just_compacted = context.get("compacted_at") == head
    if total > budget.limit and not just_compacted:
        return Prepared(messages, context, total, raw, exact, compact=request("auto"))
    return Prepared(messages, context, total, raw, exact)


def after_model(prepared: Prepared, usage: dict[str, Any] | None) -> dict[str, Any]:
    """The context state after a successful call: calibration from the reported usage."""
    context = dict(prepared.context)
    context.pop("hard_retry", None)
    context.pop("overflow_tokens", None)
    reported = int((usage or {}).get("input_tokens", 0) or 0)
    key = "calibration_exact" if prepared.exact else "calibration"
    if reported and prepared.raw:
        context[key] = tokens.recalibrate(float(context.get(key, 1.0)), reported, prepared.raw)
    context["last_prompt_tokens"] = reported or prepared.tokens
    return context


def on_model_error(prepared: Prepared, exc: BaseException) -> dict[str, Any] | None:
    """A state update asking for a hard compaction after ``context_length_exceeded`` (once);
    None to let the error stand."""
    from cairn.graph.models import is_context_overflow

    if not is_context_overflow(exc) or prepared.context.get("hard_retry"):
        return None
    context = {**prepared.context, "hard_retry": True, "compacted_at": None}
    context["overflow_tokens"] = prepared.tokens
    reported = _reported_window(exc)
    if reported:
        context["window"] = reported
    return {"context": context, "compact_request": request("hard")}


def _reported_window(exc: BaseException) -> int | None:
    """The window an overflow error names ("maximum context length is 8192 tokens")."""
    match = _LIMIT_RE.search(str(exc))
    return int(match.group(1)) if match else None
