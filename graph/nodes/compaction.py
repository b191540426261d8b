"""``compaction``: replace the older part of the prompt by a summary, journaled like a tool call.

The summary call is claimed in the tool journal (``executing``) before it starts and its
result journaled the moment it returns, under an id fixed by the checkpointed request.  A
process killed after the summary came back adopts it when the node runs again (the summary is
never asked twice); one killed during the call asks again (a model call has no side effects).
The marker is appended to the transcript last: a crash before the checkpoint leaves only an
unreachable row, and nothing was removed from the transcript at any point.
"""

from __future__ import annotations

import time
from typing import Any

from langchain_core.messages import AIMessage, SystemMessage
from langgraph.runtime import Runtime

from cairn.graph.core.compaction import tokens
from cairn.graph.core.compaction.plan import plan_cut
from cairn.graph.core.compaction.prepare import count, protected_ids
from cairn.graph.core.compaction.summary import (
    call_summary,
    fallback_summary,
    state_notes,
    summary_request,
)
from cairn.graph.core.compaction.view import make_marker, marker_info, read_view
from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import Compacted, HookRan
from cairn.graph.core.state import AgentState

#: Without a budget (a bare AgentContext), keep this many tokens of recent turns.
DEFAULT_KEEP = 8_000


def compaction(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    req = dict(state.get("compact_request") or {"id": "auto", "kind": "auto"})
    context = dict(state.get("context") or {})
    head = state.get("head")
    budget = getattr(ctx, "budget", None)
    if budget is not None:
        budget = budget.adjusted(context)
    view = read_view(ctx.store, ctx.thread_id, head, {**context, "elide_before": None})
    scale = float(context.get("calibration", 1.0))
    sizes = [int(tokens.estimate_message(m) * scale) for m in view.body]
    hard = req.get("kind") == "hard"
    keep = budget.keep_tokens(hard) if budget is not None else DEFAULT_KEEP // (2 if hard else 1)
    if req.get("kind") == "manual":  # a person asked: summarize all but the latest turn
        keep = 0
    if hard and context.get("overflow_tokens"):  # the provider refused: keep well under that
        keep = min(keep, int(context["overflow_tokens"]) // 4)
    cut = plan_cut(view.body, sizes, keep, protected_ids(state))
    done = {"compact_request": None}
    context["last_kind"] = req.get("kind")
    if cut is None:
        if req.get("kind") == "manual":
            ctx.emit(Compacted(trigger="manual", skipped=True, reason="nothing old enough to summarize"))
        return {**done, "context": {**context, "compacted_at": head}}
    system = [SystemMessage(ctx.system_prompt(ctx.mode))] if ctx.system_prompt is not None else []

    def size() -> int:
        return count(budget, system + view.messages(), context)[0] if budget is not None else 0

    before = size()
    older, kept = view.body[:cut], view.body[cut:]
    previous = view.marker.text if view.marker is not None else None
    first = view.first.text if view.first is not None else None
    window = budget.window if budget is not None else 32_768
    _pre_compact(ctx, req)
    summary, source = _journaled_summary(ctx, req, older, previous, first, max_chars=window * 2)
    notes = state_notes(state.get("tasks"), sorted(r[0] for r in ctx.store.file_reads.load(ctx.thread_id)))
    old = marker_info(view.marker) if view.marker is not None else {}
    info = {
        "kept_from": kept[0].id,
        "first_request": first,
        "summarized": int(old.get("summarized", 0)) + len(older),
        "assistant_count": int(old.get("assistant_count", 0)) + sum(isinstance(m, AIMessage) for m in older),
        "source": source,
        "kind": req.get("kind"),
        "focus": req.get("focus"),
        "tokens_before": before,
        "at": time.time(),
    }
    notes = "\n\n".join(n for n in (notes, _session_start_context(ctx)) if n)  # survives in the summary
    marker = make_marker(summary + (f"\n\n{notes}" if notes else ""), info)
    view.marker, view.body = marker, kept
    info["tokens_after"] = size()
    marker.additional_kwargs["cairn_compaction"] = info
    new_head = ctx.store.transcript.append(ctx.thread_id, head, [marker])
    done_count = int(context.get("compactions", 0)) + 1
    context.update(marker=marker.id, elide_before=None, compacted_at=new_head, compactions=done_count)
    ctx.emit(
        Compacted(
            trigger=info["kind"],
            source=source,
            summarized=len(older),
            kept=len(kept),
            tokens_before=before,
            tokens_after=info["tokens_after"],
            focus=info["focus"],
        )
    )
    return {**done, "head": new_head, "context": context}


def _journaled_summary(
    ctx: AgentContext,
    req: dict[str, Any],
    older: list[Any],
    previous: str | None,
    first: str | None,
    *,
    max_chars: int,
) -> tuple[str, str]:
    """(summary, "model" | "fallback"), adopting a summary a killed run already produced."""
    journal = ctx.store.journal
    call_id = f"compaction-{req.get('id')}"
    entry = journal.get_many(ctx.thread_id, [call_id]).get(call_id)
    if entry is not None and entry.terminal and entry.result:
        return str(entry.result.get("output") or ""), str(entry.result.get("metadata", {}).get("source"))
    record = {
        "call_id": call_id,
        "tool_name": "compaction",
        "arguments": {"kind": req.get("kind"), "focus": req.get("focus")},
        "attempt": entry.attempt + 1 if entry is not None else 0,
    }
    journal.mark_executing(ctx.thread_id, record)
    summary = call_summary(ctx.model, summary_request(older, previous, req.get("focus"), max_chars))
    source = "model" if summary else "fallback"
    summary = summary or fallback_summary(older, previous, first)
    journal.record(
        ctx.thread_id,
        {**record, "status": "success", "summary": f"compacted {len(older)} messages ({source} summary)"},
        result={"output": summary, "display": "compacted", "metadata": {"source": source}},
    )
    return summary, source


def _pre_compact(ctx: Any, req: dict[str, Any]) -> None:
    """Hooks (issue 32): PreCompact, recorded only (it cannot block a compaction)."""
    hooks = getattr(ctx, "hooks", None)
    if hooks is None or not hooks.has("PreCompact"):
        return
    trigger = "manual" if req.get("kind") == "manual" else "auto"
    payload = hooks.base_payload("PreCompact", ctx.mode) | {
        "trigger": trigger,
        "custom_instructions": req.get("focus") or "",
    }
    for run in hooks.fire("PreCompact", payload).runs:
        ctx.emit(HookRan(run.to_record()))


def _session_start_context(ctx: Any) -> str | None:
    """Hooks (issue 32): SessionStart "compact"; the context it adds goes into the summary."""
    hooks = getattr(ctx, "hooks", None)
    if hooks is None or not hooks.has("SessionStart"):
        return None
    fired = hooks.fire("SessionStart", hooks.base_payload("SessionStart", ctx.mode) | {"source": "compact"})
    for run in fired.runs:
        ctx.emit(HookRan(run.to_record()))
    return fired.context
