"""Sub-agent tools: ``agent`` starts one; ``agent_status``, ``agent_list``, ``agent_merge``.

A sub-agent is a child cairn session in the same store, linked to its parent (parent id and
this call's id).  Three modes: ``sync`` (the parent waits for the report), ``background``
(returns an agent id at once; the report reaches the parent as a message before its next
model call) and ``worktree`` (the child works on a new branch in its own git worktree and the
parent gets the branch, path and a diff summary).  The graph provides the host
(``ToolServices.subagents``); tools never import the graph.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult

AGENT_TOOL_NAMES = ("agent", "agent_status", "agent_list", "agent_merge")
UNAVAILABLE = "Sub-agents are not available here; do the work yourself."
#: Result metadata of an ``agent`` call whose sync child waits for a person: the child's id.
#: ``tool_execution`` then suspends the call (awaiting approval) instead of finishing it.
AWAITING_AGENT = "awaiting_agent"


class AgentArgs(ArgsModel):
    prompt: str = Field(
        description="Everything the sub-agent needs: the task, where to look, what to report back. "
        "It does not see this conversation."
    )
    description: str = Field(description="A short (3-8 word) title for the task, shown to the person.")
    mode: Literal["sync", "background", "worktree"] = Field(
        default="sync",
        description="sync: wait for the report. background: return an agent id now; the report arrives "
        "as a message later. worktree: the sub-agent works on a new git branch in its own worktree.",
    )
    branch_name: str | None = Field(default=None, description="worktree mode: the new branch's name.")
    model: str | None = Field(default=None, description="Another model for the sub-agent (default: yours).")
    read_only: bool | None = Field(
        default=None,
        description="Default true for sync and background (it may only read); worktree sub-agents may "
        "write inside their worktree.",
    )
    max_steps: int | None = Field(
        default=None, ge=1, description="Model-call budget (default from settings)."
    )
    max_tokens: int | None = Field(default=None, ge=1, description="Token budget (default from settings).")


class AgentTool(Tool):
    name = "agent"
    description = (
        "Start a sub-agent with its own context for a self-contained task (investigate many files, "
        "try a change on its own branch). Modes: sync (wait for its report), background (get an id "
        "now, its report arrives later; check with agent_status), worktree (works on a new git branch; "
        "merge with agent_merge). Returns its final report."
    )
    args_schema = AgentArgs
    risk_level = RiskLevel.MEDIUM
    read_only = False
    plan_mode = False
    core = True
    #: Running the same call again re-attaches to the same child session: nothing runs twice.
    idempotent = True
    concurrency_safe = True
    aliases = ("Agent", "Task", "task", "spawn_agent", "subagent", "sub_agent")
    search_hint = "delegate work to a sub-agent background worktree"
    max_output_chars = 20_000

    def run(self, params: AgentArgs, ctx: ToolContext) -> ToolResult:
        host = self.services.subagents
        if host is None:
            return ToolResult.fail(UNAVAILABLE)
        report = host.start(params.model_dump(), ctx)
        meta = {k: v for k, v in report.items() if k not in ("text", "error")}
        if report.get("error"):
            return ToolResult.fail(f"The sub-agent failed: {report['error']}", **meta)
        if report.get(AWAITING_AGENT):
            display = f"Sub-agent {params.description!r} waits for a person's decision"
            return ToolResult(output=display, display=display, metadata=meta)
        steps = report.get("tool_calls", 0)
        if report.get("status") == "running":
            display = f"Sub-agent started in the background: {params.description} ({report['agent_id']})"
        else:
            display = f"Sub-agent: {params.description} ({steps} tool calls, {report.get('status')})"
        return ToolResult(output=report.get("text") or "(no report)", display=display, metadata=meta)


class AgentIdArgs(ArgsModel):
    id: str = Field(description="The agent id that agent returned (or its start).")


class AgentStatusTool(Tool):
    name = "agent_status"
    description = "Where a sub-agent stands: status, steps, tokens, last activity, and its report once done."
    args_schema = AgentIdArgs
    risk_level = RiskLevel.LOW
    read_only = True
    plan_mode = True
    counted = False  # a companion of agent
    concurrency_safe = True
    aliases = ("subagent_status", "AgentStatus")

    def run(self, params: AgentIdArgs, ctx: ToolContext) -> ToolResult:
        host = self.services.subagents
        if host is None:
            return ToolResult.fail(UNAVAILABLE)
        info = host.status(params.id)
        if info is None:
            return ToolResult.fail(f"no sub-agent {params.id!r}; agent_list shows them")
        return ToolResult(
            output=describe(info), display=f"{info['agent_id']}: {info['status']}", metadata=info
        )


class AgentListArgs(ArgsModel):
    pass


class AgentListTool(Tool):
    name = "agent_list"
    description = "List this session's sub-agents with their status."
    args_schema = AgentListArgs
    risk_level = RiskLevel.LOW
    read_only = True
    plan_mode = True
    counted = False  # a companion of agent
    concurrency_safe = True
    aliases = ("subagent_list", "AgentList")

    def run(self, params: AgentListArgs, ctx: ToolContext) -> ToolResult:
        host = self.services.subagents
        if host is None:
            return ToolResult.fail(UNAVAILABLE)
        agents = host.list()
        if not agents:
            return ToolResult(output="No sub-agents yet.", display="no sub-agents")
        lines = [describe(a, report=False) for a in agents]
        return ToolResult(output="\n".join(lines), display=f"{len(agents)} sub-agents")


class AgentMergeTool(Tool):
    name = "agent_merge"
    description = (
        "Merge a finished worktree sub-agent's branch into the current branch and remove its worktree."
    )
    args_schema = AgentIdArgs
    risk_level = RiskLevel.MEDIUM
    read_only = False
    plan_mode = False
    counted = False  # a companion of agent
    concurrency_safe = False
    aliases = ("subagent_merge",)

    def run(self, params: AgentIdArgs, ctx: ToolContext) -> ToolResult:
        host = self.services.subagents
        if host is None:
            return ToolResult.fail(UNAVAILABLE)
        out = host.merge(params.id)
        if out.get("error"):
            return ToolResult.fail(out["error"])
        return ToolResult(output=out["text"], display=f"merged {out.get('branch')}", metadata=out)


def describe(info: dict[str, Any], *, report: bool = True) -> str:
    line = (
        f"{info['agent_id']} [{info.get('kind', 'sync')}] {info['status']}: {info.get('description', '')} "
        f"· {info.get('model_calls', 0)} steps, {info.get('tokens', 0)} tokens"
    )
    if info.get("branch"):
        line += f" · branch {info['branch']} at {info.get('worktree')}"
    if info.get("last_activity"):
        line += f" · last: {info['last_activity']}"
    if report and info.get("text"):
        line += f"\n\n{info['text']}"
    return line
