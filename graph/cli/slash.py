"""Slash commands of the interactive prompt."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cairn.graph.cli.args import MODES

HELP = """\
  /help              this help
  /mode [MODE]       show or switch the approval mode: default | accept-edits | plan | bypass
  /sessions          this workspace's sessions
  /tasks             background commands this session started
  /continue          continue the last run (after an error or --max-steps)
  /rewind            go back to before a turn or a call (files and/or conversation)
  /rewind redo       undo the last rewind
  u                  (after a run that changed files) undo the newest change
  /exit              leave (also Ctrl-D); the session can be resumed later
  Ctrl-C             stop the running tool or answer; twice to exit
  line ending in \\   continue the message on the next line"""


class Leave(Exception):
    """/exit was typed."""


def handle(command: str, repl: Any) -> None:
    """Run one slash command; ``repl`` is the Interactive instance."""
    name, _, rest = command.strip().partition(" ")
    rest = rest.strip()
    console = repl.console
    if name in ("/exit", "/quit", "/q"):
        raise Leave
    if name in ("/help", "/?"):
        console.print(Text(HELP, style="dim"))
    elif name == "/mode":
        if not rest:
            console.print(Text(f"  mode: {repl.mode}   (choose: {', '.join(MODES)})", style="dim"))
        elif rest not in MODES:
            console.print(Text(f"  unknown mode {rest!r}; choose one of {', '.join(MODES)}", style="red"))
        else:
            repl.set_mode(rest)
            console.print(Text(f"  mode: {rest}", style="green"))
    elif name == "/sessions":
        from cairn.graph.cli.sessions import session_rows

        for row in session_rows(repl.opts, all_workspaces=False):
            console.print(Text(row), soft_wrap=True)
    elif name == "/tasks":
        show_tasks(repl)
    elif name == "/continue":
        repl.continue_run()
    elif name == "/rewind":
        from cairn.graph.cli.rewind_ui import rewind_menu

        rewind_menu(repl, rest)
    else:
        console.print(Text(f"  unknown command {name}; /help lists them", style="red"))


def show_tasks(repl: Any) -> None:
    """List the session's background tasks (``bash`` with run_in_background)."""
    tasks = repl.session.background_tasks() if repl.session is not None else []
    if not tasks:
        repl.console.print(Text("  no background tasks", style="dim"))
        return
    for task in tasks:
        line = Text(f"  {task['task_id']}  {task['status']:<9} {task['duration_s']:>6.1f}s  ", style="dim")
        line.append(task["description"] or task["command"])
        repl.console.print(line, soft_wrap=True)
