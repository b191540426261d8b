"""The ``bash`` tool: run a shell command in the workspace, bounded, interruptible, reported."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cairn.tools.base import LEAN_AND_FULL, ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.shell.command import RunningCommand
from cairn.tools.shell.netproxy import lanes
from cairn.tools.shell.parse import programs, short_command
from cairn.tools.shell.progress import LineFeed
from cairn.tools.shell.render import format_duration, render_result
from cairn.tools.shell.sandbox import exit_watch
from cairn.tools.shell.sandbox.hints import sandbox_notes
from cairn.tools.shell.state import SandboxUnavailableError, ShellClosedError

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
_TICK_S = 0.05

DESCRIPTION = """\
Run a command with /bin/bash in the workspace and return its output.

- The working directory persists between calls: `cd sub` in one call affects the next. It always \
stays inside the workspace (a command that ends outside it resets it to the workspace root).
- Environment variables and shell state other than the directory do NOT persist between calls.
- Non-interactive: stdin is empty, there is no terminal, git never prompts, pagers are `cat`. \
Pass flags such as `-y`/`--yes`/`--no-edit` and never start editors or REPLs.
- `timeout` is in milliseconds (default 120000 = 2 min, max 600000 = 10 min). On timeout the whole \
process tree is stopped.
- Output: stdout, then stderr lines prefixed `[stderr]`, then `Exit code: N`. Long output keeps \
the first 80% and last 20% (stdout 200 KB, stderr 56 KB); binary output is replaced by a note.
- For servers, watchers and other long-running processes set `run_in_background=true`: you get a \
task id at once; read output with `bash_output`, stop with `kill_bash`. Anything a foreground command \
leaves running in the background (`cmd &`) is stopped when it exits.
- Secrets (API keys, tokens, passwords) are removed from the environment.
- Prefer the dedicated tools for reading, searching and editing files."""


class BashArgs(ArgsModel):
    command: str = Field(min_length=1, description="The bash command line to run.")
    timeout: int = Field(
        default=DEFAULT_TIMEOUT_MS,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description="Timeout in milliseconds (default 120000, max 600000). For background tasks the "
        "task is stopped after this long; if omitted a background task runs until killed.",
    )
    run_in_background: bool = Field(
        default=False,
        description="Start the command as a background task and return its task id immediately.",
    )
    description: str | None = Field(
        default=None, description="Five to ten words saying what the command does (shown to the person)."
    )


def bash_label(command: str, risk: str | None = None) -> str:
    """The one line a person sees while a command runs: ``Running: git status (read-only)``."""
    suffix = " (read-only)" if (risk or "").upper() == RiskLevel.LOW else ""
    return f"Running: {short_command(command)}{suffix}"


class BashTool(Tool):
    name = "bash"
    plan_mode = True  # the policy allows only read-only commands there
    profiles = LEAN_AND_FULL
    lean_fields = ("command", "timeout")
    core = True
    description = DESCRIPTION
    args_schema = BashArgs
    risk_level = RiskLevel.HIGH
    read_only = False
    concurrency_safe = False
    destructive = True
    aliases = ("Bash", "shell", "run_command", "execute_command")
    search_hint = "run shell command terminal execute script test build git"
    #: The capture bounds output (200 KB + 56 KB); leave room for markers and the footer.
    max_output_chars = 270_000

    def run(self, params: BashArgs, ctx: ToolContext) -> ToolResult:
        command = params.command
        if not command.strip():
            return ToolResult.fail("The command is empty.")
        state = self.services.shell
        read_only = (ctx.risk or "").upper() == RiskLevel.LOW
        label = bash_label(command, ctx.risk)
        sandbox = ctx.sandbox
        meta: dict[str, Any] = {
            "label": label,
            "programs": programs(command),
            "read_only": read_only,
            "sandbox": sandbox.profile if sandbox is not None else "off",
        }
        if params.description:
            meta["description"] = short_command(params.description, 200)
        timeout_s = params.timeout / 1000
        lane = None
        try:
            sandbox, lane, net_notes = lanes.open_for(
                sandbox, lambda: self.services.egress, state.backend_name(sandbox)
            )
            if params.run_in_background:  # its lane stays open until the session closes
                explicit = "timeout" in params.model_fields_set
                return self._start_background(state, params, timeout_s if explicit else None, meta, sandbox)
            writes = not read_only and (
                sandbox is None or bool(sandbox.writable_roots) or not sandbox.enabled
            )
            before = state.changes.before() if writes else None
            feed = LineFeed() if ctx.on_progress is not None else None
            ctx.progress(label)
            run, notes = state.start(command, timeout_s=timeout_s, feed=feed, sandbox=sandbox)
            notes += net_notes
        except ShellClosedError as exc:
            _close(lane)
            return ToolResult.fail(f"Cannot run the command: {exc}.")
        except SandboxUnavailableError as exc:
            _close(lane)
            return ToolResult.fail(f"The command was not run: {exc}.", **meta)
        except (OSError, ValueError) as exc:
            _close(lane)
            return ToolResult.fail(f"Could not start bash: {exc}")
        try:
            self._wait(run, ctx, feed)
        finally:
            exit_watch.drain(run.pid)  # the sandbox's placeholders and cgroup are gone when we return
            _close(lane)
        if lane is not None:
            meta["network"] = lanes.lane_log(lane)
            notes += lanes.lane_notes(lane)
        if sandbox is not None:  # what the sandbox hid or refused, read from stderr
            err = run.stderr.snapshot()
            notes += sandbox_notes(sandbox, (err.head + err.tail).decode("utf-8", "replace"), run.exit_code)
        cwd_note = state.adopt_cwd(run)
        meta["changed_files"] = state.changes.changed_since(before)
        return self._result(run, state.display(state.cwd), notes, cwd_note, meta)

    # -- foreground ----------------------------------------------------------------------
    @staticmethod
    def _wait(run: RunningCommand, ctx: ToolContext, feed: LineFeed | None) -> None:
        try:
            while not run.done.wait(_TICK_S):
                if ctx.cancel.is_set():
                    run.request_stop("cancelled")
                if feed is not None:
                    for line in feed.drain():
                        ctx.progress(line)
        except BaseException:  # Ctrl-C (KeyboardInterrupt) in the waiting thread: stop the tree
            run.stop("cancelled")
            raise
        if feed is not None:
            for line in feed.drain():
                ctx.progress(line)

    @staticmethod
    def _result(
        run: RunningCommand, cwd: str, notes: list[str], cwd_note: str | None, meta: dict[str, Any]
    ) -> ToolResult:
        out, err = run.stdout.snapshot(), run.stderr.snapshot()
        if run.leftovers_stopped:
            n = run.leftovers_stopped
            notes.append(
                f"Note: the command left {n} background process{'es' if n != 1 else ''} running; "
                "stopped. Use run_in_background=true for servers and watchers."
            )
        if run.escaped_output:
            notes.append("Note: a detached process kept the output open; it was not waited for.")
        if cwd_note:
            notes.append(cwd_note)
        text = render_result(
            out, err, exit_code=run.exit_code, signal=run.signal, duration_s=run.duration_s, notes=notes
        )
        meta.update(
            exit_code=run.exit_code,
            signal=run.signal,
            status=run.status,
            duration_s=round(run.duration_s, 3),
            cwd=cwd,
            stdout_bytes=out.total,
            stderr_bytes=err.total,
            truncated=out.truncated or err.truncated,
            cancelled=run.status in ("cancelled", "killed"),
            timed_out=run.status == "timed_out",
        )
        took = format_duration(run.duration_s)
        if run.status == "timed_out":
            return ToolResult.fail(
                f"Command timed out after {format_duration(run.timeout_s or 0)} and was stopped "
                f"(its whole process group).\n{text}",
                display=f"{meta['label']} — timed out after {took}",
                **meta,
            )
        if run.status in ("cancelled", "killed"):
            why = "was cancelled" if run.status == "cancelled" else "was stopped (the session closed)"
            return ToolResult.fail(
                f"Command {why} after {took}; its process group was stopped. Output so far:\n{text}",
                display=f"{meta['label']} — cancelled after {took}",
                **meta,
            )
        display = f"{meta['label'].replace('Running:', 'Ran:', 1)} → exit {run.exit_code} ({took})"
        return ToolResult(output=text, display=display, metadata=meta)

    # -- background ------------------------------------------------------------------------
    @staticmethod
    def _start_background(
        state: Any, params: BashArgs, timeout_s: float | None, meta: dict[str, Any], sandbox: Any = None
    ) -> ToolResult:
        task = state.start_task(
            params.command, timeout_s=timeout_s, description=params.description, sandbox=sandbox
        )
        limit = (
            f"It will be stopped after {format_duration(timeout_s)}."
            if timeout_s
            else ("It runs until it exits, you stop it, or the session ends.")
        )
        output = (
            f"Started background task {task.task_id} (pid {task.run.pid}) in {task.cwd}: "
            f"{short_command(params.command)}\n{limit}\n"
            f'Read its output with bash_output(task_id="{task.task_id}"); '
            f'stop it with kill_bash(task_id="{task.task_id}").'
        )
        meta.update(
            task_id=task.task_id, pid=task.run.pid, cwd=task.cwd, background=True, timeout_s=timeout_s
        )
        return ToolResult(
            output=output, display=f"Started {task.task_id}: {short_command(params.command)}", metadata=meta
        )


def _close(lane: Any) -> None:
    if lane is not None:
        lane.close()
