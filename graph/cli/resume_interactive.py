"""Interactive resume: show where the session stood, then settle it and keep talking."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from graph.cli import fmt
from graph.cli.interactive import Interactive
from graph.cli.options import Options

#: Index statuses that mean the last run did not finish on its own.
CUT_OFF = ("running",)


def resume_interactive(session: Any, opts: Options, decisions: dict[str, Any]) -> int:
    ui = Interactive(opts, session=session, spec=session.model_spec or "")
    ui.banner(str(session.workspace.root))
    where(ui, session)
    driver = ui.driver()
    try:
        if decisions:
            driver.decide(decisions)
        elif session.pending():
            result = None
            while result is None:  # None: a decision was refused (bad edit), asked again
                result = driver.settle(session.pending())
            driver.until_settled(result)
        elif session.status in CUT_OFF:
            ui.renderer.note("The last run was cut off; continuing it (finished tool calls are not re-run).")
            driver.continue_()
        elif session.status in ("error", "max_steps"):
            ui.renderer.note("The last run stopped early; /continue tries again.", "yellow")
    except EOFError:
        ui.console.print()
        return ui.goodbye()
    return ui.loop()


def where(ui: Interactive, session: Any) -> None:
    """The last exchange and the status, so the person knows where they are."""
    from langchain_core.messages import AIMessage, HumanMessage

    history = session.history()
    last_human = next((m for m in reversed(history) if isinstance(m, HumanMessage)), None)
    last_ai = next((m for m in reversed(history) if isinstance(m, AIMessage) and m.text), None)
    head = Text(f"resuming {session.id[:12]}", style="bold")
    status = "cut off mid-run" if session.status in CUT_OFF else session.status
    head.append(f" · {status} · {len(history)} messages", style="dim")
    ui.console.print(head)
    if last_human is not None:
        ui.console.print(Text(f"  you: {fmt.one_line(last_human.text, 200)}", style="dim"), soft_wrap=True)
    if last_ai is not None:
        ui.console.print(Text(f"  cairn: {fmt.one_line(last_ai.text, 200)}", style="dim"), soft_wrap=True)
