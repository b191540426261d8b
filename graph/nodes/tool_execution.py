"""``tool_execution``: run the pending calls, journaling each one durably.

Before a call starts, the journal records it as ``executing``; the moment it
ends, its result.  The node consults the journal first, so when it runs again
after a crash it adopts results that were already produced (never running
their side effects twice) and marks calls that were mid-run as
``interrupted`` — read-only/idempotent tools excepted, which tool_routing
retries automatically.

Consecutive concurrency-safe calls run in parallel (at most 10), the others one
at a time, in the model's order; results keep the model's order.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.state import AgentState, ToolCallInfo, calls, dump_calls
from tools.base import ToolContext, ToolResult

MAX_PARALLEL = 10


def tool_execution(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    pending = calls(state.get("pending_tool_calls"))
    completed = calls(state.get("completed_tool_calls"))
    runnable = [c for c in pending if c.status == "pending"]
    if not runnable:
        return {}
    journal = ctx.store.journal
    journal.compact(ctx.thread_id, keep=[c.call_id for c in pending])
    entries = journal.get_many(ctx.thread_id, [c.call_id for c in runnable])
    to_run: list[ToolCallInfo] = []
    for call in runnable:
        entry = entries.get(call.call_id)
        if entry is not None and entry.attempt >= call.attempt:
            if entry.terminal:
                stored = entry.result or {"output": entry.summary or "", "display": entry.summary or ""}
                _adopt(call, entry.status, ToolResult.model_validate(stored))
                continue
            if entry.status in ("executing", "interrupted"):
                call.status = "interrupted"
                call.error_msg = (
                    "The process stopped while this call was running; it was not run again. "
                    "A person can retry or cancel it."
                )
                journal.record(ctx.thread_id, call.to_state())
                continue
        to_run.append(call)
    for batch in _batches(to_run, ctx):
        if ctx.cancel.is_set():
            break
        if len(batch) == 1:
            _run_one(batch[0], ctx)
        else:
            with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(batch))) as pool:
                list(pool.map(lambda c: _run_one(c, ctx), batch))
    if ctx.cancel.is_set():
        for call in to_run:
            if call.status == "pending":
                call.status = "interrupted"
                call.error_msg = "Not started: the person stopped the run (Ctrl-C)."
                journal.record(ctx.thread_id, call.to_state())
    tasks = state.get("tasks")
    still: list[ToolCallInfo] = []
    for call in pending:
        if call.status in ("success", "error", "cancelled"):
            completed.append(call)
            update = call.metadata.pop("state", None)
            if isinstance(update, dict) and isinstance(update.get("tasks"), list):
                tasks = update["tasks"]
        else:
            still.append(call)
    out: dict[str, Any] = {
        "pending_tool_calls": dump_calls(still),
        "completed_tool_calls": dump_calls(completed),
    }
    if tasks is not None:
        out["tasks"] = tasks
    return out


def _batches(to_run: list[ToolCallInfo], ctx: AgentContext) -> list[list[ToolCallInfo]]:
    batches: list[list[ToolCallInfo]] = []
    for call in to_run:
        tool = ctx.registry.get(call.tool_name)
        safe = bool(tool and tool.concurrency_safe)
        if (
            safe
            and batches
            and batches[-1]
            and _is_safe(batches[-1][-1], ctx)
            and len(batches[-1]) < MAX_PARALLEL
        ):
            batches[-1].append(call)
        else:
            batches.append([call])
    return batches


def _is_safe(call: ToolCallInfo, ctx: AgentContext) -> bool:
    tool = ctx.registry.get(call.tool_name)
    return bool(tool and tool.concurrency_safe)


def _run_one(call: ToolCallInfo, ctx: AgentContext) -> None:
    journal = ctx.store.journal
    journal.mark_executing(ctx.thread_id, call.to_state())
    ctx.emit("tool_start", call=call.to_state())
    tool_ctx = ToolContext(
        call_id=call.call_id,
        cancel=ctx.cancel,
        on_progress=lambda line: ctx.emit("tool_progress", call_id=call.call_id, line=line),
        risk=call.risk,
    )
    result = ctx.registry.execute(call.tool_name, call.arguments, tool_ctx)
    if result.metadata.get("cancelled") or (ctx.cancel.is_set() and result.error):
        call.status = "interrupted"
        call.error_msg = "Stopped by the person (Ctrl-C) while running."
        call.display = result.display or call.error_msg
        call.metadata = dict(result.metadata)
        journal.record(ctx.thread_id, call.to_state(), result=result.model_dump(mode="json"))
        ctx.emit("tool_end", call=call.to_state())
        return
    status = "success" if result.ok else "error"
    # Journal first: once the tool has returned, its result must survive a crash.
    journal.record(
        ctx.thread_id,
        {**call.to_state(), "status": status, "summary": result.display},
        result=result.model_dump(mode="json"),
    )
    _adopt(call, status, result)
    ctx.emit("tool_end", call=call.to_state())


def _adopt(call: ToolCallInfo, status: str, result: ToolResult) -> None:
    call.status = status  # type: ignore[assignment]
    if result.ok:
        call.result = result.output
        call.error_msg = None
    else:
        call.result = None
        call.error_msg = result.error
    call.display = result.display
    call.metadata = dict(result.metadata)
