"""The session's one task list: ``task_create``, ``task_list`` and ``task_update``.

The list lives in checkpointed state (``AgentState.tasks``), so it survives restarts and
compaction.  ``todo_write`` (cairn.tools.todo) is the whole-list form over the same list.
Tools keep no state: ``tool_execution`` hands the list of the current turn to the call
(``ToolContext.tasks``, updated in place so later calls of the turn see it) and copies the
result's ``metadata["state"]["tasks"]`` back into state; the journal keeps that metadata,
so a call adopted after a crash restores the same list.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.todo import MAX_CONTENT, MAX_TASKS, render_tasks

#: The statuses of the spec; ``completed`` (todo_write's word) is stored as ``done``.
TaskState = Literal["pending", "in_progress", "done", "failed", "cancelled"]


def next_id(tasks: list[dict[str, Any]]) -> str:
    numbers = [
        int(t["id"][1:]) for t in tasks if str(t.get("id", "")).startswith("t") and t["id"][1:].isdigit()
    ]
    return f"t{max(numbers, default=0) + 1}"


def _commit(ctx: ToolContext, tasks: list[dict[str, Any]], output: str, display: str) -> ToolResult:
    if ctx.tasks is not None:
        ctx.tasks[:] = tasks
    return ToolResult(output=output, display=display, metadata={"state": {"tasks": tasks}})


class _TaskTool(Tool):
    risk_level = RiskLevel.LOW
    read_only = True  # changes only the agent's own plan, so plan mode can use it
    plan_mode = True  # changes only the agent's own plan
    counted = False  # companions of todo_write
    concurrency_safe = False
    idempotent = True
    search_hint = "plan tasks checklist progress todo"


class TaskCreateArgs(ArgsModel):
    title: str = Field(description="What to do, as a short imperative sentence.", max_length=MAX_CONTENT)
    description: str = Field(default="", description="Details: how to do it, what done means.")


class TaskCreateTool(_TaskTool):
    name = "task_create"
    description = "Add a task (status pending) to the session's task list. Returns its id."
    args_schema = TaskCreateArgs
    aliases = ("TaskCreate",)
    idempotent = False

    def run(self, params: TaskCreateArgs, ctx: ToolContext) -> ToolResult:
        tasks = [dict(t) for t in (ctx.tasks or [])]
        title = " ".join(params.title.split())
        if not title:
            return ToolResult.fail("title must not be empty")
        if len(tasks) >= MAX_TASKS:
            return ToolResult.fail(
                f"the task list is full ({MAX_TASKS}); remove finished tasks with todo_write"
            )
        task = {"id": next_id(tasks), "content": title, "status": "pending"}
        if params.description.strip():
            task["description"] = params.description.strip()
        tasks.append(task)
        return _commit(ctx, tasks, f"Created task {task['id']}: {title}", f"task {task['id']}: {title[:80]}")


class TaskListArgs(ArgsModel):
    pass


class TaskListTool(_TaskTool):
    name = "task_list"
    description = "Show the session's task list: id, status and title of every task."
    args_schema = TaskListArgs
    aliases = ("TaskList",)

    def run(self, params: TaskListArgs, ctx: ToolContext) -> ToolResult:
        tasks = list(ctx.tasks or [])
        return ToolResult(output=render_tasks(tasks, ids=True), display=f"{len(tasks)} tasks")


class TaskUpdateArgs(ArgsModel):
    id: str = Field(description="The task's id (from task_create or task_list).")
    status: TaskState = Field(description="pending, in_progress, done, failed or cancelled.")


class TaskUpdateTool(_TaskTool):
    name = "task_update"
    description = "Set a task's status: pending → in_progress → done, failed or cancelled."
    args_schema = TaskUpdateArgs
    aliases = ("TaskUpdate",)

    def run(self, params: TaskUpdateArgs, ctx: ToolContext) -> ToolResult:
        tasks = [dict(t) for t in (ctx.tasks or [])]
        match = next((t for t in tasks if t.get("id") == params.id), None)
        if match is None:
            known = ", ".join(str(t.get("id")) for t in tasks) or "none"
            return ToolResult.fail(f"no task {params.id!r}; ids: {known}")
        match["status"] = params.status
        line = f"task {params.id} → {params.status}: {match.get('content', '')[:80]}"
        return _commit(ctx, tasks, line, line)
