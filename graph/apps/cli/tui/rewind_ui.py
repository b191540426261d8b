"""Rewind in the interactive CLI: ``/rewind`` (pick a turn or call), ``u`` (undo the last change).

After a run, the newest call of that run that changed files and is still the latest change
to them is offered for undo: the person types ``u`` at the prompt.  ``/rewind`` lists the
recent turns and, under each, the calls that changed files; picking one shows what would
change (a dry run) and asks: rewind code and conversation, code only, conversation only.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

CHOICES = "ybcmn"


def offer_undo(repl: Any, result: Any) -> None:
    """Remember (and show) the call of ``result`` that ``u`` would undo."""
    repl.undo_offer = None
    session = repl.session
    if result is None or session is None or session.core.snapshotter is None:
        return
    for call in reversed(result.tool_calls):
        if call.status not in ("success", "error"):
            continue
        if session.undo_problem(call.call_id) is None:
            files = _files(session, call.call_id)
            repl.undo_offer = call.call_id
            repl.renderer.note(f"  u undo {call.tool_name} ({files}) · /rewind to go further back")
            return


def _files(session: Any, call_id: str) -> str:
    result = session.undo_call(call_id, dry_run=True)
    names = result.changed
    return ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")


def undo(repl: Any) -> None:
    call_id, repl.undo_offer = repl.undo_offer, None
    _report(repl, lambda: repl.session.undo_call(call_id))


def _report(repl: Any, action: Any) -> Any:
    from cairn.graph.session.errors import SessionError

    try:
        result = action()
    except SessionError as exc:
        repl.renderer.note(f"  {exc}", "yellow")
        return None
    for line in result.summary().splitlines():
        style = "yellow" if line.strip().startswith("kept") else "dim"
        repl.console.print(Text(line, style=style), soft_wrap=True)
    return result


def rewind_menu(repl: Any, rest: str) -> None:
    session = repl.session
    if session is None:
        repl.renderer.note("  nothing to rewind yet")
        return
    if rest == "redo":
        _report(repl, session.redo)
        return
    points = session.rewind_points()
    if not points:
        repl.renderer.note("  nothing to rewind yet")
        return
    repl.console.print(Text("  rewind to just before:", style="bold"))
    for number, point in enumerate(points, start=1):
        if point.call_id is None:
            label = f"turn {point.turn}  “{point.text}”"
        else:
            more = f" +{len(point.files) - 3}" if len(point.files) > 3 else ""
            label = f"    {point.call_id}  {', '.join(point.files[:3])}{more}"
        repl.console.print(Text(f"  {number:>3}  {label}"), soft_wrap=True)
    try:
        answer = repl.prompter.line(repl.prompter.styled("  number (Enter cancels) › ", "1")).strip()
    except KeyboardInterrupt:
        repl.console.print()
        return
    if not answer.isdigit() or not 1 <= int(answer) <= len(points):
        repl.renderer.note("  cancelled")
        return
    point = points[int(answer) - 1]
    target = {"call_id": point.call_id} if point.call_id else {"turn": point.turn}
    preview = _report(repl, lambda: session.rewind(**target, dry_run=True))
    if preview is None:
        return
    prompt = Text("  y code and conversation · c code only · m conversation only · n cancel › ", "bold")
    choice = repl.prompter.key(prompt, "ycmn")
    if choice == "n":
        repl.renderer.note("  cancelled")
        return
    done = _report(repl, lambda: session.rewind(**target, code=choice != "m", conversation=choice != "c"))
    if done is not None:
        repl.undo_offer = None
        repl.renderer.note("  /rewind redo undoes this rewind")
