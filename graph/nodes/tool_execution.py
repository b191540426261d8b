"""``tool_execution``: run the pending calls, journaling each one durably.

Before a call starts, the journal records (claims) it as ``executing``; the
moment it ends, its result.  The node consults the journal first, so when it
runs again after a crash it adopts results that were already produced (never
running their side effects twice) and marks calls that were mid-run as
``interrupted`` — tool_routing retries read-only/idempotent ones by itself.

Consecutive concurrency-safe calls run in parallel (at most 10), the others one
at a time, in the model's order; results keep the model's order.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.runtime import Runtime

from cairn.checkpoints.errors import StoreBusy
from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import ToolEnd, ToolProgress, ToolStart
from cairn.graph.core.state import TERMINAL_STATUSES, AgentState, ToolCallInfo, calls, dump_calls
from cairn.graph.core.workspace_snapshots import snapshot_after, snapshot_before
from cairn.tools.agent import AWAITING_AGENT
from cairn.tools.base import ToolContext, ToolResult

MAX_PARALLEL = 10
INTERRUPTED_BY_CRASH = (
    "The process stopped while this call was running; it was not run again. A person can retry or cancel it."
)


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
        if entry is None or entry.attempt < call.attempt:
            to_run.append(call)
        elif entry.tool_name != call.tool_name:  # never adopt another call's result
            call.attempt = entry.attempt + 1
            to_run.append(call)
        elif entry.terminal:
            stored = entry.result or {"output": entry.summary or "", "display": entry.summary or ""}
            _adopt(call, entry.status, stored)
            if ctx.hooks is not None:  # -- hooks (issue 32): a PostToolUse due at the crash runs now
                from cairn.graph.core.hooks.tool_hooks import post_tool_use

                post_tool_use(ctx, call)
        else:  # executing (the process died mid-call) or already interrupted
            _interrupt(call, INTERRUPTED_BY_CRASH, ctx)
    board = _task_board(state.get("tasks"), pending)
    for batch in _batches(to_run, ctx):
        if ctx.cancel.is_set():
            break
        if len(batch) == 1:
            _run_one(batch[0], ctx, board)
        else:
            with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(batch))) as pool:
                list(pool.map(lambda c: _run_one(c, ctx, board), batch))
    if ctx.cancel.is_set():
        for call in to_run:
            if call.status == "pending":
                _interrupt(call, "Not started: the person stopped the run (Ctrl-C).", ctx)
    tasks = state.get("tasks")
    activated = list(state.get("activated_tools") or [])
    still: list[ToolCallInfo] = []
    for call in pending:
        if call.status in TERMINAL_STATUSES:
            completed.append(call)
            update = call.metadata.pop("state", None)
            if isinstance(update, dict) and isinstance(update.get("tasks"), list):
                tasks = update["tasks"]
            if isinstance(update, dict) and isinstance(update.get("activate_tools"), list):
                activated += [
                    n for n in update["activate_tools"] if isinstance(n, str) and n not in activated
                ]
        else:
            still.append(call)
    out: dict[str, Any] = {
        "pending_tool_calls": dump_calls(still),
        "completed_tool_calls": dump_calls(completed),
    }
    if tasks is not None:
        out["tasks"] = tasks
    if activated != list(state.get("activated_tools") or []):
        out["activated_tools"] = activated
    return out


def _batches(to_run: list[ToolCallInfo], ctx: AgentContext) -> list[list[ToolCallInfo]]:
    """Runs of consecutive concurrency-safe calls (at most MAX_PARALLEL), others alone."""
    batches: list[list[ToolCallInfo]] = []
    previous_safe = False
    for call in to_run:
        tool = ctx.registry.get(call.tool_name)
        safe = bool(tool and tool.concurrency_safe)
        if safe and previous_safe and len(batches[-1]) < MAX_PARALLEL:
            batches[-1].append(call)
        else:
            batches.append([call])
        previous_safe = safe
    return batches


def _interrupt(call: ToolCallInfo, why: str, ctx: AgentContext) -> None:
    call.status = "interrupted"
    call.error_msg = why
    ctx.store.journal.record(ctx.thread_id, call.to_state())


def _task_board(tasks: list[dict[str, Any]] | None, pending: list[ToolCallInfo]) -> list[dict[str, Any]]:
    """The task list the turn's calls share: the state's, with results adopted from the journal."""
    board = [dict(t) for t in tasks or []]
    for call in pending:
        update = call.metadata.get("state") if call.status in TERMINAL_STATUSES else None
        if isinstance(update, dict) and isinstance(update.get("tasks"), list):
            board = [dict(t) for t in update["tasks"]]
    return board


def _run_one(call: ToolCallInfo, ctx: AgentContext, board: list[dict[str, Any]] | None = None) -> None:
    journal = ctx.store.journal
    snapshotted = snapshot_before(call, ctx)  # for rewind: before the `executing` record
    if not journal.mark_executing(ctx.thread_id, call.to_state()):
        call.status = "interrupted"
        call.error_msg = (
            "Another run of this session is already executing this call; it was not started twice."
        )
        return
    ctx.emit(ToolStart(call.to_state()))
    tool_ctx = ToolContext(
        call_id=call.call_id,
        cancel=ctx.cancel,
        on_progress=lambda line: ctx.emit(ToolProgress(call.call_id, line)),
        risk=call.risk,
        sandbox=_sandbox_spec(call, ctx),
        tasks=board,
        line_numbers=ctx.tool_profile != "lean",
    )
    refusal = _lane_refusal(call, ctx)
    if refusal is not None:
        result = ToolResult.fail(refusal)
    else:
        result = ctx.registry.execute(call.tool_name, call.arguments, tool_ctx)
    stopped = bool(result.metadata.get("cancelled")) or (ctx.cancel.is_set() and not result.ok)
    if result.metadata.get(AWAITING_AGENT) and not stopped:
        _suspend(call, result, ctx)
        ctx.emit(ToolEnd(call.to_state()))
        return
    status = "interrupted" if stopped else ("success" if result.ok else "error")
    # Journal first: once the tool has returned, its result must survive a crash.
    data = result.to_json()
    record = {**call.to_state(), "status": status, "summary": result.display}
    if stopped:
        record["error_msg"] = "Stopped by the person (Ctrl-C) while running."
    _journal_result(ctx, record, data)
    if snapshotted:
        snapshot_after(call, ctx)
    if stopped:
        call.status = "interrupted"
        call.error_msg = record["error_msg"]
        call.display = result.display or call.error_msg
        call.metadata = data.get("metadata") or {}
    else:
        _adopt(call, status, data)
        if ctx.hooks is not None:  # -- hooks (issue 32): after the result is journaled
            from cairn.graph.core.hooks.tool_hooks import post_tool_use

            post_tool_use(ctx, call)
    ctx.emit(ToolEnd(call.to_state()))


def _suspend(call: ToolCallInfo, result: ToolResult, ctx: AgentContext) -> None:
    """A sync sub-agent waits for a person: the ``agent`` call waits with it (awaiting approval).

    Its next attempt, once the child's calls are decided, re-attaches to the same child;
    the journal keeps this attempt as ``awaiting_approval``, so it is never taken for a
    call a crash cut off.
    """
    ctx.store.journal.record(ctx.thread_id, {**call.to_state(), "status": "awaiting_approval"})
    call.status = "awaiting_approval"
    call.attempt += 1
    call.reason = "its sub-agent waits for a person's decision"
    call.display = result.display
    call.metadata = {AWAITING_AGENT: result.metadata[AWAITING_AGENT]}


def _sandbox_spec(call: ToolCallInfo, ctx: AgentContext) -> Any:
    """The OS sandbox for a shell call, from the profile its verdict (or a person) chose."""
    tool = ctx.registry.get(call.tool_name)
    if ctx.sandbox is None or tool is None or tool.name != "bash":
        return None
    from cairn.graph.core.rule_setup import is_builtin

    if not is_builtin(tool):
        return None
    # A person approved (or edited) this very call: its credential files need not be hidden.
    approved = (call.decision or "").startswith(("approved", "edited"))
    return ctx.sandbox.spec(call.sandbox, approved=approved, domains=tuple(call.network or ()))


def _lane_refusal(call: ToolCallInfo, ctx: AgentContext) -> str | None:
    """A write tool allowed unattended runs in the workspace-write lane: its path is checked
    again now (it may have become a symlink out of the workspace since it was judged)."""
    if call.sandbox != "workspace-write" or call.tool_name not in ("write_file", "edit_file"):
        return None
    from cairn.graph.core.rule_setup import is_builtin
    from cairn.policy.filetools import lane_refusal

    tool = ctx.registry.get(call.tool_name)
    if tool is None or not is_builtin(tool):
        return None
    return lane_refusal(call.tool_name, call.arguments, ctx.workspace)


def _journal_result(ctx: AgentContext, record: dict[str, Any], result: dict[str, Any]) -> None:
    """Write a finished call's result, retrying briefly if another process holds the database."""
    for attempt in range(5):
        try:
            ctx.store.journal.record(ctx.thread_id, record, result=result)
            return
        except StoreBusy:
            if attempt == 4:
                raise
            time.sleep(0.05 * (attempt + 1))


def _adopt(call: ToolCallInfo, status: str, data: dict[str, Any]) -> None:
    """Take a finished result (a ``ToolResult.to_json()`` dict) into the call."""
    result = ToolResult.model_validate(data)
    call.status = status  # type: ignore[assignment]
    if result.ok:
        call.result = result.output
        call.error_msg = None
    else:
        call.result = None
        call.error_msg = result.error
    call.display = result.display
    call.metadata = dict(result.metadata)
