"""``task``: hand a self-contained investigation to a read-only sub-agent.

The sub-agent is another cairn agent on the same workspace and model, in plan
mode (it can read, search and run read-only commands; it cannot change
anything or ask the person), with its own context window.  Only its final
answer comes back, which keeps the main conversation short.  The graph
provides the runner (``ToolServices.subagent_runner``); tools never import the
graph.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult


class TaskArgs(ArgsModel):
    description: str = Field(description="A short (3-8 word) title for the task, shown to the person.")
    prompt: str = Field(
        description="Everything the sub-agent needs: the question, where to look, and what to report back. "
        "It does not see this conversation."
    )


class TaskTool(Tool):
    name = "task"
    description = (
        "Start a read-only sub-agent for a self-contained investigation (find where something is defined, "
        "summarize how a module works, check many files). It can read, search and run read-only commands "
        "but cannot edit or ask the person. Returns its final report."
    )
    args_schema = TaskArgs
    risk_level = RiskLevel.MEDIUM
    read_only = True
    concurrency_safe = True
    aliases = ("Task", "Agent", "subagent", "sub_agent")
    search_hint = "delegate research to a sub-agent"
    max_output_chars = 20_000

    def run(self, params: Any, ctx: ToolContext) -> ToolResult:
        runner = self.services.subagent_runner
        if runner is None:
            return ToolResult.fail("Sub-agents are not available here; do the investigation yourself.")
        report = runner(params.description, params.prompt, ctx)
        if report.get("error"):
            return ToolResult.fail(
                f"The sub-agent failed: {report['error']}",
                subagent_session=report.get("session_id"),
                tool_calls=report.get("tool_calls", 0),
            )
        text = report.get("text") or "(the sub-agent gave no answer)"
        steps = report.get("tool_calls", 0)
        return ToolResult(
            output=text,
            display=f"Sub-agent: {params.description} ({steps} tool calls)",
            metadata={"subagent_session": report.get("session_id"), "tool_calls": steps},
        )
