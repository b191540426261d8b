"""The ``bash_output`` tool: new output of a background task since the last read, and its status."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import AliasChoices, Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.shell.background import BackgroundTask
from cairn.tools.shell.capture import Captured
from cairn.tools.shell.render import format_duration, render_streams

#: Wall-clock budget for running ``filter`` over one read's output. The model writes the
#: pattern, and a backtracking one (``(x+x+)+y``) could otherwise run for hours.
FILTER_BUDGET_S = 2.0

#: Other agents call the id ``bash_id`` or ``shell_id``; accept those too.
TASK_ID_ALIASES = AliasChoices("task_id", "bash_id", "shell_id")

if TYPE_CHECKING:
    import regex


class BashOutputArgs(ArgsModel):
    task_id: str = Field(
        min_length=1,
        validation_alias=TASK_ID_ALIASES,
        description='The id returned when the task was started, e.g. "bg-1".',
    )
    filter: str | None = Field(
        default=None,
        description="Optional regular expression: only new lines matching it are shown "
        "(the others are consumed all the same).",
    )


def task_status_line(task: BackgroundTask) -> str:
    run = task.run
    took = format_duration(run.duration_s)
    status = task.status
    if status == "running":
        return f"Task {task.task_id}: running (pid {run.pid}, {took})"
    if status == "exited":
        return f"Task {task.task_id}: exited with code {run.exit_code} after {took}"
    if status == "timed_out":
        return f"Task {task.task_id}: timed out after {format_duration(run.timeout_s or 0)} and was stopped"
    return f"Task {task.task_id}: killed after {took} (exit code {run.exit_code})"


def unknown_task(task_id: str, known: list[str]) -> ToolResult:
    listed = ", ".join(known) if known else "none have been started"
    return ToolResult.fail(f"No background task {task_id!r}. Known tasks: {listed}.")


class BashOutputTool(Tool):
    name = "bash_output"
    plan_mode = True
    description = (
        "Read a background task's output produced since the previous read, with its status "
        "(running, exited, killed, timed_out) and exit code. Tasks are started with "
        "bash(run_in_background=true)."
    )
    args_schema = BashOutputArgs
    risk_level = RiskLevel.LOW
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("BashOutput",)
    search_hint = "background task output logs status"

    def run(self, params: BashOutputArgs, ctx: ToolContext) -> ToolResult:
        state = self.services.shell
        task = state.task(params.task_id)
        if task is None:
            return unknown_task(params.task_id, state.task_ids())
        pattern = None
        if params.filter:
            import regex  # only when a filter is given

            try:
                pattern = regex.compile(params.filter)
            except (regex.error, ValueError, OverflowError) as exc:
                return ToolResult.fail(f"Invalid filter regular expression: {exc}")
        status = task_status_line(task)  # before reading, so "exited" implies all output was read
        out, err, ends = task.peek_new()
        body = render_streams(out, err)
        if pattern is not None and body:
            try:
                body = filter_lines(pattern, body, FILTER_BUDGET_S)
            except TimeoutError:
                return ToolResult.fail(
                    f"The filter {params.filter!r} took longer than {FILTER_BUDGET_S:g} s on the new "
                    "output (the pattern backtracks too much), so nothing was shown and the output "
                    "stays unread. Use a simpler pattern, or no filter.",
                    task_id=task.task_id,
                    status=task.status,
                )
        task.advance(ends)
        text = f"{status}\n{body}" if body else f"{status}\n(no new output)"
        run = task.run
        meta = {
            "task_id": task.task_id,
            "status": task.status,
            "exit_code": run.exit_code if run.done.is_set() else None,
            "duration_s": round(run.duration_s, 3),
            "new_stdout_bytes": _size(out),
            "new_stderr_bytes": _size(err),
        }
        return ToolResult(output=text, display=status, metadata=meta)


def filter_lines(pattern: regex.Pattern[str], text: str, budget_s: float) -> str:
    """The lines of ``text`` that ``pattern`` matches; ``TimeoutError`` past ``budget_s`` in all.

    The ``regex`` module checks the clock while it backtracks and releases the GIL
    (``concurrent=True``), so a bad pattern neither hangs nor freezes the agent's other threads.
    """
    deadline = time.monotonic() + budget_s
    kept = []
    for line in text.split("\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("filter time budget exceeded")
        if pattern.search(line, timeout=left, concurrent=True):
            kept.append(line)
    return "\n".join(kept)


def _size(c: Captured) -> int:
    return len(c.head) + c.omitted + len(c.tail)
