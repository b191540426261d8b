"""``human_approval``: the only node that calls ``interrupt()``.

LangGraph re-runs this node from its first line when it resumes, so nothing
impure happens before the interrupt.  The interrupt value lists every gated
call; the answer is validated (``ApprovalResponse``) and applied per call.
Calls a person did not decide stay gated and are asked again.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cairn import policy
from cairn.graph.core.context import AgentContext
from cairn.graph.core.events import ToolEnd
from cairn.graph.core.state import GATED_STATUSES, AgentState, ToolCallInfo, calls, dump_calls
from cairn.graph.nodes.tool_routing import sandbox_gaps, sandbox_state
from cairn.tools.base import ToolResult


class CallDecision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action: Literal["approve", "always", "reject", "edit", "retry", "cancel"]
    message: str = Field(default="", description="Feedback for the model (reject).")
    args: dict[str, Any] | None = Field(default=None, description="New arguments (edit).")
    sandbox: Literal["off"] | None = Field(
        default=None,
        description='"off": run this shell call without the OS sandbox (approve, always, edit).',
    )
    network: list[str] | None = Field(
        default=None,
        description="Domains this sandboxed shell call may reach through cairn's egress proxy "
        "(approve, always): a person's 'yes, with network'.",
    )

    @field_validator("network")
    @classmethod
    def _domains(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        from cairn.tools.shell.netproxy.domains import normalize_domains

        return list(normalize_domains(value))  # ValueError: a clear validation error


class ApprovalResponse(BaseModel):
    """What a person answers: one decision per gated call id."""

    model_config = ConfigDict(extra="forbid")

    decisions: dict[str, CallDecision]


response_schema = ApprovalResponse.model_json_schema()


def approval_request(pending: list[ToolCallInfo]) -> dict[str, Any]:
    return {
        "type": "approval_request",
        "calls": [
            {
                "call_id": c.call_id,
                "tool_name": c.tool_name,
                "arguments": c.arguments,
                "status": c.status,
                "risk": c.risk,
                "reason": c.reason,
                "preview": c.preview,
                "sandbox": c.sandbox,
                **({"network_offer": c.network_offer} if c.network_offer else {}),
                "choices": ["retry", "cancel"]
                if c.status == "interrupted"
                else ["approve", "always", "reject", "edit"],
            }
            for c in pending
            if c.status in GATED_STATUSES
        ],
        "response_schema": response_schema,
    }


def human_approval(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    pending = calls(state.get("pending_tool_calls"))
    if not any(c.status in GATED_STATUSES for c in pending):
        return {}
    answer = interrupt(approval_request(pending))
    try:
        response = ApprovalResponse.model_validate(answer)
    except ValidationError:
        return {}  # nothing decided: the calls stay gated and are asked again
    rules = list(state.get("session_rules") or [])
    completed = calls(state.get("completed_tool_calls"))
    still: list[ToolCallInfo] = []
    for call in pending:
        decision = response.decisions.get(call.call_id)
        if call.status not in GATED_STATUSES or decision is None:
            still.append(call)
            continue
        done = _apply(call, decision, ctx, rules)
        (completed if done else still).append(call)
        if done:  # rejected or cancelled: surfaces see the outcome as it happens
            ctx.emit(ToolEnd(call.to_state()))
    return {
        "pending_tool_calls": dump_calls(still),
        "completed_tool_calls": dump_calls(completed),
        "session_rules": rules,
    }


def _session_rule(call: ToolCallInfo, ctx: AgentContext) -> str | None:
    """The narrow rule "always" adds, or None when none can be made (it is then approved once)."""
    return policy.always_rule(call.tool_name, call.arguments, workspace=ctx.workspace)


def _apply_edit(call: ToolCallInfo, decision: CallDecision, ctx: AgentContext) -> bool:
    """Edited arguments are validated and judged by the policy again: a deny rule still holds."""
    checked = ctx.registry.validate(call.tool_name, decision.args or {})
    if isinstance(checked, ToolResult):
        call.status = "cancelled"
        call.error_msg = (
            f"A person tried to edit this call but the new arguments were invalid: {checked.error}"
        )
        return True
    call.original_arguments = call.arguments
    call.arguments = checked[1]
    from cairn.graph.core.rule_setup import policy_name

    tool = ctx.registry.get(call.tool_name)
    verdict = policy.evaluate(
        policy_name(tool) if tool is not None else call.tool_name,
        call.arguments,
        workspace=ctx.workspace,
        mode=ctx.mode,
        rules=ctx.rules,
        sandbox=sandbox_state(ctx),
        sandbox_gaps=sandbox_gaps(ctx),
    )
    call.risk, call.reason = str(verdict.risk), verdict.reason
    call.sandbox = _approved_sandbox(verdict.sandbox, decision)
    if str(verdict.decision) == "deny":
        call.status, call.decision = "cancelled", "edited"
        call.error_msg = (
            f"A person edited this call, but the edited call is denied by policy: {verdict.reason}"
        )
        call.display = call.error_msg[:160]
        return True
    call.status, call.decision = "pending", "edited"
    return False


def _approved_sandbox(profile: str | None, decision: CallDecision) -> str | None:
    """A person approved the call: workspace-write (or what the verdict said when the sandbox is
    off or unavailable), unless they chose to run it without the sandbox."""
    if profile is None:
        return None
    if decision.sandbox == "off":
        return "off"
    return "off" if profile == "off" else "workspace-write"


def _with_domains(rule: str, domains: list[str]) -> str:
    """A bash session rule that also grants ``domains`` (``bash(pip install:*; domain:pypi.org)``)."""
    command = rule[len("bash(") : -1] if rule.startswith("bash(") and rule.endswith(")") else "*"
    return f"bash({command}; domain:{','.join(domains)})"


def _apply(call: ToolCallInfo, decision: CallDecision, ctx: AgentContext, rules: list[str]) -> bool:
    """Apply one decision; returns True when the call is finished (cancelled)."""
    action = decision.action
    if call.status == "interrupted" and action in ("approve", "always"):
        action = "retry"
    if call.status == "awaiting_approval" and action == "retry":
        action = "approve"
    if action in ("approve", "always"):
        call.status, call.decision = "pending", "approved"
        call.sandbox = _approved_sandbox(call.sandbox, decision)
        if decision.sandbox == "off" and call.sandbox == "off":
            call.decision = "approved without sandbox"
        elif decision.network and call.sandbox not in (None, "off"):
            call.network = list(dict.fromkeys([*(call.network or ()), *decision.network]))
            call.decision = f"approved with network ({', '.join(decision.network)})"
        if action == "always":
            rule = _session_rule(call, ctx)
            if rule is not None and decision.network and call.network:
                rule = _with_domains(rule, call.network)
            if rule is None:
                call.decision = "approved (once: no safe 'always' rule fits this call)"
            else:
                if rule not in rules:
                    rules.append(rule)
                call.decision = f"approved always ({rule})"
            if decision.sandbox == "off" and call.sandbox == "off":
                call.decision += " without sandbox"
        return False
    if action == "edit":
        return _apply_edit(call, decision, ctx)
    if action == "retry":
        call.status, call.decision = "pending", "retried"
        call.attempt += 1
        return False
    # reject / cancel
    was_interrupted = call.status == "interrupted"
    call.status = "cancelled"
    if was_interrupted or action == "cancel":
        call.decision = "cancelled"
        call.error_msg = "This call was interrupted and a person chose not to run it again."
    else:
        call.decision = f"rejected: {decision.message}" if decision.message else "rejected"
        call.error_msg = "A person rejected this call." + (
            f" Their message: {decision.message}" if decision.message else ""
        )
    call.display = call.error_msg[:160]
    return True
