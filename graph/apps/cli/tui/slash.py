"""Slash commands of the interactive prompt."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.args import MODES

HELP = """\
  /help              this help
  /mode [MODE]       show or switch the approval mode: default | accept-edits | plan | bypass
  /sessions          this workspace's sessions
  /tasks             the task list, and background commands this session started
  /continue          continue the last run (after an error or --max-steps)
  /rewind            go back to before a turn or a call (files and/or conversation)
  /rewind redo       undo the last rewind
  u                  (at this prompt, after a run that changed files) undo the newest change
  /compact [FOCUS]   summarize older turns now to free context (FOCUS: what the summary must keep)
  /hooks             the hooks that run at each step, from where, trusted or not
  /cost              what this session spent, by model and by sub-agent
  /exit              leave (also Ctrl-D); the session can be resumed later
  Ctrl-C             stop the running tool or answer; twice to exit
  line ending in \\   continue the message on the next line

approval keys (one key, no Enter):
  y / Enter          run the call
  n                  do not run it, then tell the model why
  a                  run it and allow calls like it this session (the menu shows the rule)
  e                  edit the arguments ($VISUAL/$EDITOR, or inline), then run
  !                  a sandboxed shell command: run it without the OS sandbox (not u: u is undo)
  w                  a sandboxed shell command: run it with network to the domains shown (or typed)
  Y / N              approve / reject every call still waiting
  r / c              an interrupted call: retry it / cancel it (R / C: all of them)
  background tasks on leaving: s stop them · k keep them running (output to a log file)"""


class Leave(Exception):
    """/exit was typed."""


def handle(command: str, repl: Any) -> str | None:
    """Run one slash command; ``repl`` is the Interactive instance.

    Returns the text to send to the agent for a custom command (``.cairn/commands/NAME.md``),
    else None.
    """
    name, _, rest = command.strip().partition(" ")
    rest = rest.strip()
    console = repl.console
    if name in ("/exit", "/quit", "/q"):
        raise Leave
    if name in ("/help", "/?"):
        console.print(Text(HELP, style="dim"))
        for line in custom_help(repl):
            console.print(Text(line, style="dim"), soft_wrap=True)
    elif name == "/mode":
        if not rest:
            console.print(Text(f"  mode: {repl.mode}   (choose: {', '.join(MODES)})", style="dim"))
        elif rest not in MODES:
            console.print(Text(f"  unknown mode {rest!r}; choose one of {', '.join(MODES)}", style="red"))
        else:
            repl.set_mode(rest)
            console.print(Text(f"  mode: {rest}", style="green"))
    elif name == "/sessions":
        from cairn.graph.apps.cli.commands.sessions import session_rows

        for row in session_rows(repl.opts, all_workspaces=False):
            console.print(Text(row), soft_wrap=True)
    elif name == "/tasks":
        show_tasks(repl)
    elif name == "/continue":
        repl.continue_run()
    elif name == "/rewind":
        from cairn.graph.apps.cli.tui.rewind_ui import rewind_menu

        rewind_menu(repl, rest)
    elif name == "/compact":
        compact(repl, rest or None)
    elif name == "/hooks":  # -- hooks (issue 32)
        from cairn.graph.apps.cli.commands.hooks import show_hooks

        show_hooks(repl)
    elif name == "/cost":  # issue 34 hook-in
        from cairn.graph.apps.cli.tui.cost import show_cost

        show_cost(repl)
    else:
        custom = find_custom(repl, name)
        if custom is not None:
            from cairn.tools.commands import expand_command

            return expand_command(custom, rest)
        console.print(Text(f"  unknown command {name}; /help lists them", style="red"))
    return None


def _commands(repl: Any) -> list[Any]:
    from cairn.tools.commands import discover_commands
    from cairn.tools.workspace import Workspace

    try:
        return discover_commands(Workspace(repl.opts.workspace_root()))
    except Exception:  # a broken commands folder never breaks the prompt
        return []


def find_custom(repl: Any, name: str) -> Any:
    from cairn.tools.commands import find_command

    return find_command(_commands(repl), name)


def custom_help(repl: Any) -> list[str]:
    """/help's lines for the custom commands (.cairn/commands/, the user's commands/)."""
    commands = _commands(repl)
    if not commands:
        return []
    lines = ["  custom commands:"]
    for c in commands:
        usage = f"/{c.name} {c.argument_hint}".strip()
        lines.append(f"  {usage:<18} {c.description} ({c.source})")
    return lines


def show_tasks(repl: Any) -> None:
    """The session's task list, its background tasks (``bash`` with run_in_background), then the
    ones earlier sessions of this workspace kept running when they ended (with their log files)."""
    from cairn.graph.session.kept_tasks import listed

    session = repl.session
    plan = session.tasks() if session is not None else []
    if plan:  # the agent's task list first
        from cairn.tools.todo import render_tasks

        repl.console.print(Text(render_tasks(plan, ids=True)), soft_wrap=True)
    tasks = session.core.background_tasks() if session is not None else []
    kept = [t for t in listed(repl.opts.workspace_root()) if session is None or t["session_id"] != session.id]
    if not tasks and not kept:
        repl.console.print(Text("  no background tasks", style="dim"))
        return
    for task in tasks:
        line = Text(f"  {task['task_id']}  {task['status']:<9} {task['duration_s']:>6.1f}s  ", style="dim")
        line.append(task["description"] or task["command"])
        repl.renderer.line(line)
    if kept:
        repl.console.print(Text("  kept running by earlier sessions:", style="bold"))
    for task in kept:
        line = Text(f"  {task['task_id']}  {task['status']:<9} pid {task['pid']}  ", style="dim")
        line.append(task.get("description") or task["command"])
        line.append(f"  → {task['log']}", style="dim")
        repl.renderer.line(line)


def compact(repl: Any, focus: str | None) -> None:
    """``/compact [focus]``: compact the session now and say what it changed."""
    if repl.session is None:
        repl.console.print(Text("  nothing to compact yet", style="dim"))
        return
    from cairn.graph.session.errors import SessionError

    try:
        info = repl.session.compact(focus)
    except SessionError as exc:
        repl.console.print(Text(f"  {exc}", style="red"))
        return
    repl.console.print(Text(compaction_line(info), style="dim"), soft_wrap=True)


def compaction_line(info: dict[str, Any]) -> str:
    if info.get("skipped"):
        return f"  nothing compacted: {info.get('reason', 'nothing old enough to summarize')}"
    source = (
        "model summary" if info.get("source") == "model" else "fallback summary (the summary call failed)"
    )
    return (
        f"  compacted: {info.get('summarized', 0)} earlier messages → {source}; "
        f"prompt ~{info.get('tokens_before', 0):,} → ~{info.get('tokens_after', 0):,} tokens"
    )
