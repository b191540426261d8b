"""The ``kill_bash`` tool: stop a background task (its whole process group)."""

from __future__ import annotations

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.shell.bash_output import TASK_ID_ALIASES, task_status_line, unknown_task


class KillBashArgs(ArgsModel):
    task_id: str = Field(
        min_length=1,
        validation_alias=TASK_ID_ALIASES,
        description='The id of the background task to stop, e.g. "bg-1".',
    )


class KillBashTool(Tool):
    name = "kill_bash"
    plan_mode = True  # stops only background tasks the agent started (read-only ones in plan mode)
    description = (
        "Stop a background task started with bash(run_in_background=true): SIGTERM to its whole "
        "process group, then SIGKILL if it has not exited after 5 seconds."
    )
    args_schema = KillBashArgs
    risk_level = RiskLevel.LOW
    read_only = False
    concurrency_safe = False
    aliases = ("KillBash", "KillShell")
    search_hint = "stop kill background task process"

    def run(self, params: KillBashArgs, ctx: ToolContext) -> ToolResult:
        state = self.services.shell
        task = state.task(params.task_id)
        if task is None:
            return unknown_task(params.task_id, state.task_ids())
        if task.run.done.is_set():
            status = task_status_line(task)
            return ToolResult(
                output=f"{status}; nothing to stop.",
                display=status,
                metadata={"task_id": task.task_id, "status": task.status, "exit_code": task.run.exit_code},
            )
        stopped = task.run.stop("killed")
        status = task_status_line(task)
        if not stopped:
            return ToolResult.fail(
                f"Task {task.task_id} did not stop within the grace period (pid {task.run.pid}).",
                task_id=task.task_id,
                status=task.status,
            )
        return ToolResult(
            output=f"{status}. Unread output is still available with bash_output.",
            display=status,
            metadata={"task_id": task.task_id, "status": task.status, "exit_code": task.run.exit_code},
        )
