"""Interactive resume: show where the session stood, then settle it and keep talking."""

from __future__ import annotations

import argparse
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli import decision_flags
from cairn.graph.apps.cli.decision_flags import CUT_OFF
from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.tui import fmt
from cairn.graph.apps.cli.tui.interactive import Interactive


def resume_interactive(session: Any, opts: Options, ns: argparse.Namespace) -> int:
    status = session.status
    if decision_flags.given(ns) and not session.pending() and status not in CUT_OFF:
        session.close()
        decision_flags.build_decisions(ns, [], status=status)  # raises: nothing to decide
    ui = Interactive(opts, session=session, spec=session.core.model_spec or "")
    driver = ui.driver()
    ui.banner(str(session.workspace.root))
    from cairn.graph.apps.cli.commands.mcp import ask_project_servers

    ask_project_servers(ui)
    from cairn.graph.apps.cli.commands.hooks import ask_project_hooks, attach_notifier  # -- hooks (issue 32)

    ask_project_hooks(ui)
    attach_notifier(session, "interactive")
    where(ui, session)
    try:
        if decision_flags.given(ns):
            _apply_flags(ui, session, ns)
        elif session.pending():
            driver.settle_all()
        elif session.status in CUT_OFF:
            ui.renderer.note("The last run was cut off; continuing it (finished tool calls are not re-run).")
            driver.continue_()
        elif session.status in ("error", "max_steps", "loop", "incomplete", "no_answer", "budget"):
            ui.renderer.note("The last run stopped early; /continue tries again.", "yellow")
    except EOFError:
        ui.console.print()
        return ui.goodbye()
    return ui.loop()


def _apply_flags(ui: Interactive, session: Any, ns: argparse.Namespace) -> None:
    """The decision flags; calls they leave undecided (or refuse) are asked here."""
    driver = ui.driver()
    s, on_event = session, ui.renderer.on_event
    try:
        decisions, _ = decision_flags.prepare(
            session,
            ns,
            lambda: driver.run_once(lambda: s.continue_(stream=True, on_event=on_event)),
            complete=False,
        )
    except CliError as exc:
        ui.renderer.note(f"  {exc}", "red")
        decisions = {}
    if decisions:
        driver.decide(decisions)
    elif session.pending():
        driver.settle_all()


def where(ui: Interactive, session: Any) -> None:
    """The last exchange and the status, so the person knows where they are."""
    from langchain_core.messages import AIMessage

    from cairn.graph.core.messages import is_person_message

    history = session.history()
    last_human = next((m for m in reversed(history) if is_person_message(m)), None)
    last_ai = next((m for m in reversed(history) if isinstance(m, AIMessage) and m.text), None)
    head = Text(f"resuming {session.id[:12]}", style="bold")
    status = "cut off mid-run" if session.status in CUT_OFF else session.status
    head.append(f" · {status} · {len(history)} messages", style="dim")
    ui.console.print(head)
    if last_human is not None:
        ui.console.print(Text(f"  you: {fmt.one_line(last_human.text, 200)}", style="dim"), soft_wrap=True)
    if last_ai is not None:
        ui.console.print(Text(f"  cairn: {fmt.one_line(last_ai.text, 200)}", style="dim"), soft_wrap=True)
