"""``tool_routing``: ask the policy about every pending call.

``allow`` keeps a call ``pending``, ``ask`` marks it ``awaiting_approval`` (with a
dry-run preview such as the diff of an edit), ``deny`` cancels it with the
reason, which the model reads.  Calls found ``interrupted`` after a restart come
here too: read-only/idempotent tools are retried automatically (and say so),
the others wait for a person.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.runtime import Runtime

from cairn import policy
from cairn.graph.core import loops
from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import ToolEnd
from cairn.graph.core.state import AgentState, ToolCallInfo, calls, dump_calls
from cairn.graph.core.workspace_snapshots import warm_for
from cairn.tools.base import ToolResult

MAX_PREVIEW_CHARS = 20_000


def effective_rules(ctx: AgentContext, state: AgentState) -> Any:
    """Configured rules plus the session's "always allow" rules (any that no longer parse,
    e.g. after a policy upgrade, are skipped rather than breaking the session)."""
    rules = ctx.rules
    for rule in state.get("session_rules") or []:
        try:
            rules = rules.with_allow(rule)
        except Exception:
            continue
    return rules


def tool_routing(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    mode = ctx.mode
    rules = effective_rules(ctx, state)
    pending: list[ToolCallInfo] = []
    completed = calls(state.get("completed_tool_calls"))
    pause: dict[str, Any] = {}
    for index, call in enumerate(calls(state.get("pending_tool_calls"))):
        if call.status == "interrupted":
            pending.append(_route_interrupted(call, ctx))
            continue
        if call.status != "pending" or call.decision:
            # Already routed (awaiting) or approved by a person: leave as is.
            pending.append(call)
            continue
        repeat = loops.repeat_of(call, state.get("loop_memory"), lambda cid: _earlier_answer(ctx, state, cid))
        if repeat is not None:
            completed.append(_answer_repeat(call, repeat, ctx))
            if repeat.count >= ctx.repeat_limit:
                pause = {
                    "paused": "loop",
                    "pause_reason": f"the model repeated the same {call.tool_name} call {repeat.count + 1} "
                    f"times ({call.call_id}, first {repeat.earlier}); continue to let it go on",
                }
            continue
        verdict = policy.evaluate(
            _policy_name(call, ctx),
            call.arguments,
            workspace=ctx.workspace,
            mode=mode,
            rules=rules,
            cwd=_shell_cwd(call, ctx),
            sandbox=sandbox_state(ctx),
            sandbox_gaps=sandbox_gaps(ctx),
        )
        call.risk, call.reason, call.sandbox = str(verdict.risk), verdict.reason, verdict.sandbox
        call.network, call.network_offer = list(verdict.network) or None, list(verdict.network_offer) or None
        decision = str(verdict.decision)
        if ctx.hooks is not None:  # -- hooks (issue 32): PreToolUse may deny/ask/allow/rewrite
            from cairn.graph.core.hooks.tool_hooks import pre_tool_use

            decision = pre_tool_use(
                ctx, call, decision, lambda args, c=call: _judge(c, args, ctx, mode, rules)
            )
        if decision in ("allow", "ask"):
            warm_for(call, ctx)  # the rewind snapshot / git status it will wait for, in the background
        if decision == "allow":
            pending.append(call)
        elif decision == "ask" and index == 0 and (refused := _precheck(call, ctx)):
            completed.append(_refused(call, refused, ctx))  # (issue 31) bound to fail: nobody is asked
        elif decision == "ask":
            dry = _dry_run(call, ctx)
            if dry is not None and dry.error and dry.metadata.get("doomed") and not pending:
                # (R2, issue 28) it would fail as it stands (a file changed or not read since,
                # text not found), and no earlier call of the message runs first (a read_file
                # before it could make it work): the model hears why now; nobody is asked.
                call.status, call.error_msg = "error", dry.error
                call.display = dry.error.splitlines()[0][:160]
                completed.append(call)
                ctx.emit(ToolEnd(call.to_state()))
                continue
            call.status = "awaiting_approval"
            call.preview = _preview_text(dry)
            if ctx.hooks is not None:  # -- hooks (issue 32): PermissionRequest may decide the wait
                from cairn.graph.core.hooks.tool_hooks import permission_request

                if permission_request(ctx, call) == "deny":
                    completed.append(call)
                    ctx.emit(ToolEnd(call.to_state()))
                    continue
            pending.append(call)
        else:
            call.status = "cancelled"
            call.error_msg = call.error_msg or f"Denied by policy: {verdict.reason}"
            call.display = call.error_msg[:160]
            completed.append(call)
            ctx.emit(ToolEnd(call.to_state()))
    return {"pending_tool_calls": dump_calls(pending), "completed_tool_calls": dump_calls(completed), **pause}


def _judge(call: ToolCallInfo, args: dict[str, Any], ctx: AgentContext, mode: str, rules: Any) -> Any:
    """-- hooks (issue 32): the policy's verdict on ``call`` with the arguments a hook gave it."""
    return policy.evaluate(
        _policy_name(call, ctx),
        args,
        workspace=ctx.workspace,
        mode=mode,
        rules=rules,
        cwd=_shell_cwd(call, ctx),
        sandbox=sandbox_state(ctx),
        sandbox_gaps=sandbox_gaps(ctx),
    )


def _precheck(call: ToolCallInfo, ctx: AgentContext) -> str | None:
    """Why the call cannot succeed, from the tool's own ``precheck`` (None: it may).

    Asked only of a turn's first call: an earlier call of the same turn (a read, a write, a
    command) could change what a later one finds."""
    tool = ctx.registry.get(call.tool_name)
    check = getattr(tool, "precheck", None)
    if check is None:
        return None
    try:
        return check(call.arguments)
    except Exception:  # a broken check never blocks the call; the run reports what happens
        return None


def _refused(call: ToolCallInfo, why: str, ctx: AgentContext) -> ToolCallInfo:
    call.status = "error"
    call.error_msg = f"Not run (it cannot succeed as given): {why}"
    call.display = call.error_msg.splitlines()[0][:160]
    ctx.emit(ToolEnd(call.to_state()))
    return call


def _earlier_answer(ctx: AgentContext, state: AgentState, call_id: str) -> str:
    """What an earlier call of this run answered: its ToolMessage, read back from the transcript."""
    from langchain_core.messages import ToolMessage

    def is_answer(message: Any) -> bool:
        return isinstance(message, ToolMessage) and message.tool_call_id == call_id

    found = ctx.store.transcript.tail(ctx.thread_id, state.get("head"), stop=is_answer)
    if not found or not is_answer(found[0]):
        return "(its result is no longer available)"
    content = found[0].content
    return content if isinstance(content, str) else json.dumps(content)[:4000]


def _answer_repeat(call: ToolCallInfo, repeat: loops.Repeat, ctx: AgentContext) -> ToolCallInfo:
    """A repeated call is answered from the earlier one: it does not run, and is not asked about."""
    call.status = repeat.status  # type: ignore[assignment]
    call.decision = f"repeat of {repeat.earlier}"
    call.reason = f"identical to {repeat.earlier} earlier in this run, with nothing changed since"
    if repeat.status == "success":
        call.result = repeat.text
        call.display = f"repeat of {repeat.earlier}: answered without running it again"
    else:
        call.error_msg = repeat.text
        call.display = f"repeat of {repeat.earlier}: not run again"
    ctx.emit(ToolEnd(call.to_state()))
    return call


def sandbox_state(ctx: AgentContext) -> str:
    """What the policy is told about sandboxing: on, off (settings) or unavailable."""
    return ctx.sandbox.state if ctx.sandbox is not None else "off"


def sandbox_gaps(ctx: AgentContext) -> dict[str, tuple[str, ...]] | None:
    """Per profile, the guarantees the session's sandbox backend lacks here (the policy asks)."""
    if ctx.sandbox is None or ctx.sandbox.state != "on":
        return None
    from cairn.tools.shell.sandbox.detect import missing_guarantees

    return missing_guarantees(ctx.sandbox.backend)


def _policy_name(call: ToolCallInfo, ctx: AgentContext) -> str:
    from cairn.graph.core.rule_setup import policy_name

    tool = ctx.registry.get(call.tool_name)
    return policy_name(tool) if tool is not None else call.tool_name


def _shell_cwd(call: ToolCallInfo, ctx: AgentContext) -> Any:
    """Where a shell command will run: the directory an earlier ``cd`` left the shell in."""
    tool = ctx.registry.get(call.tool_name)
    if tool is None or tool.name != "bash" or "shell" not in tool.services.__dict__:
        return None
    cwd = tool.services.shell.cwd
    return None if cwd == ctx.workspace.root else cwd


def _route_interrupted(call: ToolCallInfo, ctx: AgentContext) -> ToolCallInfo:
    tool = ctx.registry.get(call.tool_name)
    if tool is not None and (tool.read_only or tool.idempotent) and call.decision != "auto-retried":
        call.status = "pending"
        call.decision = "auto-retried"
        call.attempt += 1
        call.reason = f"{call.tool_name} is read-only, so it was retried automatically after an interruption"
    return call


def _dry_run(call: ToolCallInfo, ctx: AgentContext) -> ToolResult | None:
    tool = ctx.registry.get(call.tool_name)
    if tool is None or not tool.supports_dry_run:
        return None
    return tool.dry_run(call.arguments)


def _preview_text(result: ToolResult | None) -> str | None:
    if result is None:
        return None
    if result.error:
        return f"(preview unavailable: {result.error})"
    text = result.metadata.get("diff") or result.output
    if not isinstance(text, str):
        return None
    return text[:MAX_PREVIEW_CHARS]
