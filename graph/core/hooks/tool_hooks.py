"""The tool-call hooks: ``PreToolUse`` (in ``tool_routing``), ``PermissionRequest`` (a call is
about to wait for a person) and ``PostToolUse`` (in ``tool_execution``).

Policy interplay (issue 32 item 2): a hook can make a call stricter in any mode (deny, ask);
an ``allow`` counts only from the user's own hooks (settings or ``Session(hooks=)``), never from
a project's; after ``updatedInput`` the policy judges the new input again, so its hard-deny
set and protected paths still refuse it.  Every run is recorded on the call (``call.hooks``,
checkpointed, kept in the call log) and in the hook journal, and reported as a ``hook`` event.

Crash consistency: a recorded event (journal row ``done``) is adopted instead of run again —
a ``PreToolUse`` decision is never asked twice, and a ``PostToolUse`` that was due after a
crash runs once.  A hook the crash cut off mid-run (row ``running``) runs again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import HookRan
from cairn.graph.core.hooks.matching import display_name, select
from cairn.graph.core.hooks.outcome import Fired, HookRun
from cairn.graph.core.state import ToolCallInfo

PROJECT_ALLOW_IGNORED = "a project's hook cannot allow a call (only the user's own hooks can)"


def hook_journal(store: Any) -> Any:
    """The store's hook journal (created with its table on first use)."""
    journal = store.__dict__.get("_hook_journal")
    if journal is None:
        from cairn.checkpoints.hook_journal import HookJournal

        journal = store.__dict__["_hook_journal"] = HookJournal(store.db)
    return journal


def tool_names(ctx: AgentContext, call: ToolCallInfo) -> tuple[str, ...]:
    tool = ctx.registry.get(call.tool_name)
    names = (call.tool_name, *(((tool.name, *tool.aliases)) if tool is not None else ()))
    return tuple(dict.fromkeys(names))


def wants(ctx: AgentContext, event: str, call: ToolCallInfo) -> bool:
    """Whether any hook runs for ``event`` on this call (cheap: the fast path when none)."""
    engine = ctx.hooks
    if engine is None or not engine.has(event):
        return False
    return bool(select([h for h in engine.active() if h.event == event], tool_names(ctx, call)))


def fire_for_call(ctx: AgentContext, event: str, call: ToolCallInfo, extra: dict[str, Any]) -> Fired:
    """Run (or adopt the journaled result of) ``event``'s hooks for ``call``, and record them."""
    journal = hook_journal(ctx.store)
    recorded = journal.get(ctx.thread_id, call.call_id, event, call.attempt)
    if recorded is not None and recorded[0] == "done":
        fired = Fired([HookRun.from_record(r) for r in recorded[1]])
    else:
        names = tool_names(ctx, call)
        tool = ctx.registry.get(call.tool_name)
        payload = ctx.hooks.base_payload(event, ctx.mode) | {
            "tool_name": display_name(call.tool_name, tool.aliases if tool is not None else ()),
            "cairn_tool_name": call.tool_name,
            "tool_input": dict(call.arguments),
            "tool_use_id": call.call_id,
            **extra,
        }
        # Hooks that finished before a crash are adopted; the one it cut off runs again.
        earlier = [HookRun.from_record(r) for r in recorded[1]] if recorded is not None else []
        journal.mark_running(
            ctx.thread_id, call.call_id, event, call.attempt, [r.to_record() for r in earlier]
        )

        def journaled(run: HookRun, runs: list[HookRun]) -> None:
            if run.decision == "allow" and run.source == "project":
                run.ignored = PROJECT_ALLOW_IGNORED
            journal.mark_running(
                ctx.thread_id, call.call_id, event, call.attempt, [r.to_record() for r in runs]
            )

        fired = ctx.hooks.fire(event, payload, names, done=earlier, on_run=journaled)
        journal.record_done(ctx.thread_id, call.call_id, event, call.attempt, fired.records())
    for run in fired.runs:
        ctx.emit(HookRan(run.to_record(), call.call_id))
    call.hooks = [*call.hooks, *fired.records()]
    return fired


def pre_tool_use(
    ctx: AgentContext, call: ToolCallInfo, decision: str, judge: Callable[[dict[str, Any]], Any]
) -> str:
    """The decision for ``call`` once its PreToolUse hooks spoke (``judge(args)`` → a new Verdict)."""
    if decision == "deny" or not wants(ctx, "PreToolUse", call):
        return decision
    fired = fire_for_call(ctx, "PreToolUse", call, {})
    deciding = fired.deciding
    label = deciding.hook if deciding is not None else ""
    if fired.stop is not None and fired.decision != "deny":  # ``continue: false``: the call is refused
        deciding, label = fired.stop, fired.stop.hook
        call.reason = fired.stop.stop_reason or "a PreToolUse hook stopped it"
        call.error_msg = f"Blocked by a PreToolUse hook ({label}): {call.reason}"
        return "deny"
    if fired.decision == "deny":
        call.reason = fired.reason or f"blocked by the PreToolUse hook {label}"
        call.error_msg = f"Blocked by a PreToolUse hook ({label}): {call.reason}"
        return "deny"
    updated = fired.updated_input
    if updated is not None and updated != call.arguments:
        call.original_arguments = call.original_arguments or dict(call.arguments)
        call.arguments = {**call.arguments, **updated}
        verdict = judge(call.arguments)  # hard-deny and protected paths hold for the new input
        call.risk, call.reason, call.sandbox = str(verdict.risk), verdict.reason, verdict.sandbox
        decision = str(verdict.decision)
        if decision == "deny":
            call.error_msg = f"Denied by policy (after a PreToolUse hook changed the input): {verdict.reason}"
            return "deny"
    if fired.decision == "ask":
        call.reason = f"a PreToolUse hook asks ({label}): {fired.reason}".rstrip(": ")
        return "ask"
    if fired.decision == "allow" and decision == "ask":
        call.decision = f"allowed by hook {label}"
        return "allow"
    if fired.context:
        call.note = _joined(call.note, fired.context)
    return decision


def permission_request(ctx: AgentContext, call: ToolCallInfo) -> str | None:
    """``PermissionRequest`` for a call about to wait: ``allow`` (user hooks only), ``deny`` or None."""
    if not wants(ctx, "PermissionRequest", call):
        return None
    fired = fire_for_call(ctx, "PermissionRequest", call, {"reason": call.reason or ""})
    deciding = fired.deciding
    if fired.decision in ("deny", "block"):
        call.status = "cancelled"
        call.error_msg = (
            f"Denied by a PermissionRequest hook ({deciding.hook if deciding else ''}): {fired.reason}"
        )
        call.display = call.error_msg[:160]
        return "deny"
    if fired.decision == "allow":
        if fired.updated_input is not None:
            call.original_arguments = call.original_arguments or dict(call.arguments)
            call.arguments = {**call.arguments, **fired.updated_input}
        call.status = "pending"
        call.decision = f"allowed by hook {deciding.hook if deciding else ''}"
        call.preview = None
        return "allow"
    return None


def post_tool_use(ctx: AgentContext, call: ToolCallInfo) -> None:
    """``PostToolUse`` after a call succeeded or failed: feedback for the model goes in its note."""
    if call.status not in ("success", "error") or not wants(ctx, "PostToolUse", call):
        return
    response = {
        "status": call.status,
        "output": call.result,
        "error": call.error_msg,
        "display": call.display,
    }
    fired = fire_for_call(ctx, "PostToolUse", call, {"tool_response": response})
    if fired.decision == "block":
        deciding = fired.deciding
        call.note = _joined(
            call.note, f"PostToolUse hook ({deciding.hook if deciding else ''}): {fired.reason}"
        )
    if fired.context:
        call.note = _joined(call.note, fired.context)


def _joined(note: str | None, text: str) -> str:
    return f"{note}\n{text}" if note else text
