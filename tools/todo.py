"""The ``todo_write`` tool: the agent's own task list for the session.

The tool keeps no state.  Each call replaces the whole list; the result carries
``metadata={"state": {"tasks": [...]}}`` and the graph copies those item dicts into
checkpointed state, so the plan survives restarts and is shown to people.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult

MAX_TASKS = 100
MAX_CONTENT = 1000
MARKS = {"done": "[x]", "in_progress": "[~]", "pending": "[ ]", "failed": "[!]", "cancelled": "[-]"}

DESCRIPTION = """Create or update your task list for this session (it replaces the whole list).

Use it for work with several steps: write the steps as tasks, mark one `in_progress` before you start it
and `completed` as soon as it is done (do not batch), add tasks you discover, remove ones that no longer
apply. At most one task may be `in_progress`. Skip it for a single trivial step.
Send the complete list every time; an empty list clears it."""

#: ``completed`` is accepted (other agents' word) and stored as ``done``.
TaskStatus = Literal["pending", "in_progress", "done", "completed", "failed", "cancelled"]


class TodoItem(BaseModel):
    # Lenient on purpose: models trained on other agents add keys such as ``activeForm`` or
    # ``priority``; dropping them beats a validation round-trip on every plan update.
    model_config = ConfigDict(extra="ignore")

    content: str = Field(description="What to do, as a short imperative sentence.", max_length=MAX_CONTENT)
    status: TaskStatus = Field(
        description="pending, in_progress (at most one task), done (or completed), failed or cancelled."
    )
    id: str | None = Field(default=None, description="Optional stable id for the task (unique in the list).")
    description: str | None = Field(default=None, description="Optional details.")

    @field_validator("status")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return "done" if value == "completed" else value

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("content must not be empty")
        return value


class TodoWriteArgs(ArgsModel):
    todos: list[TodoItem] = Field(
        description="The complete, updated task list in order (replaces the previous list).",
        max_length=MAX_TASKS,
    )

    @model_validator(mode="after")
    def _consistent(self) -> TodoWriteArgs:
        active = [i + 1 for i, item in enumerate(self.todos) if item.status == "in_progress"]
        if len(active) > 1:
            raise ValueError(
                f"at most one task may be in_progress; tasks {', '.join(map(str, active))} are. "
                "Mark the others pending or completed."
            )
        ids = [item.id for item in self.todos if item.id is not None]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"task ids must be unique; repeated: {', '.join(duplicates)}")
        return self


def render_tasks(tasks: list[dict], *, ids: bool = False) -> str:
    """The checklist a model or a person reads: ``[x]`` done, ``[~]`` in progress, ``[ ]`` pending,
    ``[!]`` failed, ``[-]`` cancelled (``completed`` from older sessions reads as done)."""
    if not tasks:
        return "Task list is empty."
    done = sum(1 for t in tasks if t.get("status") in ("done", "completed"))
    lines = [f"Tasks ({done}/{len(tasks)} completed):"]
    for t in tasks:
        status = "done" if t.get("status") == "completed" else t.get("status", "")
        label = f"{t.get('id')} " if ids and t.get("id") else ""
        lines.append(f"{MARKS.get(status, '[?]')} {label}{t.get('content', '')}")
    return "\n".join(lines)


class TodoWriteTool(Tool):
    name = "todo_write"
    plan_mode = True  # changes only the agent's own plan
    description = DESCRIPTION
    args_schema = TodoWriteArgs
    risk_level = RiskLevel.LOW
    read_only = True  # changes only the agent's own plan, so plan mode can use it
    concurrency_safe = False
    idempotent = True
    aliases = ("TodoWrite", "write_todos", "update_tasks")
    search_hint = "plan tasks checklist progress todo"

    def run(self, params: TodoWriteArgs, ctx: ToolContext) -> ToolResult:
        tasks = [item.model_dump(exclude_none=True) for item in params.todos]
        taken = {t["id"] for t in tasks if "id" in t}
        number = 0
        for task in tasks:  # every task gets an id, so task_update can name it
            while "id" not in task:
                number += 1
                if f"t{number}" not in taken:
                    task["id"] = f"t{number}"
                    taken.add(task["id"])
        if ctx.tasks is not None:
            ctx.tasks[:] = tasks
        counts = {status: sum(1 for t in tasks if t["status"] == status) for status in MARKS}
        current = next((t["content"] for t in tasks if t["status"] == "in_progress"), None)
        display = (
            f"{len(tasks)} tasks: {counts['done']} done, {counts['in_progress']} in progress, "
            f"{counts['pending']} pending"
        )
        if current:
            display += f" · now: {current[:80]}"
        return ToolResult(
            output=render_tasks(tasks, ids=True),
            display=display if tasks else "task list cleared",
            metadata={"state": {"tasks": tasks}},
        )
