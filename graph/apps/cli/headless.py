"""Headless runs (``cairn -p``, ``cairn resume ... -p``): no questions, then an exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from cairn.graph.apps.cli.exits import CTRL_C, CliError, code_for
from cairn.graph.apps.cli.options import Options, check_model, preflight_model
from cairn.graph.apps.cli.output import HeadlessOutput, pause_hint, pending_line
from cairn.graph.apps.cli.signals import CtrlC
from cairn.graph.core.events import DecisionRefused, Event, Waiting

Work = Callable[[Callable[[str, dict[str, Any]], None]], Any]


class StderrNotes:
    """The little a Ctrl-C handler needs to say, when no renderer is on stderr."""

    def note(self, text: str, style: str = "") -> None:
        print(text, file=sys.stderr, flush=True)

    def finish(self) -> None:
        pass


def new_session(opts: Options) -> Any:
    """Build a Session from the common flags (exit 2 when the model or workspace is unusable)."""
    spec = opts.model_spec()
    preflight_model(spec)
    root = opts.workspace_root()
    check_model(spec)
    from cairn.graph.session.session import Session

    session = Session(
        root,
        model=spec,
        db=opts.db,
        mode=opts.approval or "default",
        max_steps=opts.max_steps,
        **opts.session_kwargs(),
    )
    from cairn.graph.apps.cli.commands.mcp import warn_unapproved

    warn_unapproved(session)
    from cairn.graph.apps.cli.commands.hooks import attach_notifier, warn_held  # -- hooks (issue 32)

    warn_held(session)
    attach_notifier(session, "headless")
    return session


def run_prompt(
    session: Any, opts: Options, prompt: str, output_format: str, *, wait: tuple[bool, float | None]
) -> int:
    """Send ``prompt`` to ``session`` (from :func:`new_session`) headless; the exit code."""

    def work(on_event: Any) -> Any:
        events = with_wait_notes(session, opts, on_event)
        return session.send(prompt, stream=True, on_event=events, wait=wait[0], wait_timeout=wait[1])

    return execute(session, opts, output_format, work)


def with_wait_notes(session: Any, opts: Options, on_event: Any) -> Any:
    """``on_event`` that also tells the person on stderr what a ``--wait`` run is waiting for."""
    decide = opts.resume_command(session.id).replace("cairn resume", "cairn decide", 1)

    def events(event: Event) -> None:
        if isinstance(event, Waiting):
            waiting = set(event.call_ids)
            for call in session.pending():
                if call.call_id in waiting:
                    print(f"cairn: {pending_line(call).strip()}", file=sys.stderr, flush=True)
            ids = ", ".join(event.call_ids)
            print(
                f"cairn: waiting for decisions on {ids} (session {session.id}); from any machine that "
                f"reaches this database: {decide} --approve all  (or --reject all:why). "
                "Ctrl-C stops waiting; the session stays paused and resumable.",
                file=sys.stderr,
                flush=True,
            )
        elif isinstance(event, DecisionRefused):
            print(f"cairn: recorded decisions refused: {event.error}", file=sys.stderr, flush=True)
        on_event(event)

    return events


def execute(session: Any, opts: Options, output_format: str, work: Work) -> int:
    """Run ``work(on_event)`` with Ctrl-C mapped to stop; print the outcome; return the exit code.

    A ``CliError`` from ``work`` (bad decisions...) is reported in the output too (json: the
    result object with ``error`` set), then re-raised for ``main`` to print and exit with.
    """
    output = HeadlessOutput(output_format, verbose=opts.verbose, plain=opts.plain)
    notes = output.renderer or StderrNotes()
    resume = lambda *extra: opts.resume_command(session.id, *extra)  # noqa: E731
    hint = lambda result: pause_hint(result, resume, in_memory=opts.in_memory)  # noqa: E731
    ctrlc = CtrlC(notes, on_exit=lambda: notes.note(saved_note(opts, session.id)))
    output.start(session)
    try:
        try:
            result = ctrlc.run(session, lambda: work(output.on_event))
        except CliError as exc:
            output.fail(session, str(exc), exc.result, hint(exc.result) if exc.result is not None else [])
            raise
        output.finish(result, hint(result))
    finally:
        session.close()
    return CTRL_C if ctrlc.stopped else code_for(result.status)


def saved_note(opts: Options, session_id: str) -> str:
    """What a second Ctrl-C leaves behind: how to resume (or that an in-memory session is gone)."""
    if opts.in_memory:
        return f"session {session_id} was in memory only (--db :memory:): it cannot be resumed"
    return f"session saved · resume: {opts.resume_command(session_id)}"
