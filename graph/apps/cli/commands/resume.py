"""``cairn resume [SESSION_ID | --last]``: pick a session up where it stood.

Headless (``-p`` or stdin not a TTY): apply the decision flags (every paused call must get
one), otherwise continue the run (recovery after a crash happens here), then send the
optional message.  Interactive: show where the session stood, re-ask paused calls, continue
a run that was cut off, then the usual prompt.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cairn.graph.apps.cli import decision_flags
from cairn.graph.apps.cli.exits import USAGE, CliError
from cairn.graph.apps.cli.options import Options, preflight_model
from cairn.graph.apps.cli.tui.term import is_tty


def resolve_id(ns: argparse.Namespace, opts: Options) -> str:
    if ns.session_id and ns.last:
        raise CliError("give a SESSION_ID or --last, not both")
    if ns.session_id:
        return ns.session_id
    if not ns.last:
        raise CliError("which session? give a SESSION_ID (see `cairn sessions`) or --last")
    from cairn.graph.apps.cli.commands.sessions import load

    rows = load(opts, all_workspaces=False)[:1]
    if not rows:
        raise CliError(f"no sessions in {opts.workspace_root()}; `cairn sessions --all` lists every one")
    return rows[0].session_id


def _override(session_id: str, ns: argparse.Namespace, opts: Options) -> str | None:
    """The spec for a resume given --model and/or --base-url, saying what it replaces."""
    from cairn.graph.apps.cli.commands.sessions import list_records
    from cairn.graph.apps.cli.options import with_endpoint
    from cairn.graph.models.factory import split_spec

    record = next(
        (r for r in list_records(opts.db, None, limit=10_000) if r.session_id.startswith(session_id)), None
    )
    recorded = record.model if record is not None else ""
    old_name, old_url = split_spec(recorded) if recorded else ("", None)
    if ns.model:
        spec = opts.model_spec()
        name, url = split_spec(spec) if not spec.startswith("script:") else (spec, None)
    else:
        name, url = old_name, old_url
    if ns.base_url:
        url = ns.base_url
    spec = with_endpoint(name, url) if not name.startswith("script:") else name
    if spec == recorded:
        return None
    said = []
    if name != old_name:
        said.append(f"model {name} instead of the session's {old_name or 'default'}")
    if url != old_url and not name.startswith("script:"):
        said.append(f"endpoint {url or 'the default'} instead of {old_url or 'the default'}")
    if said:
        print(f"cairn: this run uses {' and '.join(said)} (--model/--base-url given)", file=sys.stderr)
    return spec


def open_session(ns: argparse.Namespace, opts: Options) -> Any:
    sid = resolve_id(ns, opts)
    from cairn.graph.session.session import Session, SessionError

    # Only an explicit --model/--base-url replaces the recorded ones ($CAIRN_MODEL and
    # $OPENAI_BASE_URL are for new sessions: a resume keeps the session's endpoint).
    model = _override(sid, ns, opts) if ns.model or ns.base_url else None
    try:
        session = Session.resume(
            sid,
            db=opts.db,
            model=model,
            mode=opts.approval,
            max_steps=opts.max_steps,
            **opts.session_kwargs(),
        )
    except (SessionError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    from cairn.graph.apps.cli.commands.hooks import (
        attach_notifier,  # -- hooks (issue 32): interactive re-attaches
    )

    attach_notifier(session, "headless")
    for done in session.recovered:  # a rewind a crash had cut short, completed now
        print(done.summary(), file=sys.stderr)
    if getattr(ns, "fork", False) or getattr(ns, "at", None) or getattr(ns, "turn", None):  # issue 34
        from cairn.graph.apps.cli.commands.resume_fork import fork_session

        session = fork_session(session, ns)
    spec = session.core.model_spec
    if spec:
        preflight_model(spec)
    return session


def run_resume(ns: argparse.Namespace, opts: Options) -> int:
    headless = ns.print_prompt is not None or not is_tty(sys.stdin)
    if not headless and ns.output_format != "text":
        raise CliError("--output-format is for headless runs: add -p (with or without a MESSAGE)")
    if ns.wait_timeout is not None:
        ns.wait = True
    if ns.wait and not headless:
        raise CliError("--wait is for headless runs: add -p (with or without a MESSAGE)")
    from cairn.graph.apps.cli.startup import quiet_gc

    with quiet_gc():  # loading the agent and opening the session (startup.py)
        session = open_session(ns, opts)
    if headless and decision_flags.given(ns) and session.waiting.held_elsewhere():
        # A run elsewhere holds the session (waiting for exactly this): hand the decisions over.
        from cairn.graph.apps.cli.handover import record

        try:
            return record(session, ns)
        finally:
            session.close()
    if headless:
        return _headless(session, opts, ns)
    from cairn.graph.apps.cli.tui.resume_interactive import resume_interactive

    return resume_interactive(session, opts, ns)


def _headless(session: Any, opts: Options, ns: argparse.Namespace) -> int:
    from cairn.graph.apps.cli.headless import execute, with_wait_notes
    from cairn.graph.session.decision_forms import DecisionError
    from cairn.graph.session.session import SessionError

    message = (ns.print_prompt or "").strip()
    if not message and not decision_flags.given(ns) and session.status == "done" and not session.pending():
        return _nothing_to_do(session, ns.output_format)
    wait = {"wait": bool(ns.wait), "wait_timeout": ns.wait_timeout}

    def work(on_event: Any) -> Any:
        on_event = with_wait_notes(session, opts, on_event)
        runs = []
        try:
            if decision_flags.given(ns):
                recover = lambda: session.continue_(stream=True, on_event=on_event)  # noqa: E731
                decisions, recovered = decision_flags.prepare(session, ns, recover)
                runs += [recovered] if recovered is not None else []
                runs.append(session.decide(decisions, stream=True, on_event=on_event))
                if wait["wait"] and runs[-1].status == "awaiting_approval":
                    runs.append(session.wait(ns.wait_timeout, stream=True, on_event=on_event))
            else:
                runs.append(session.continue_(stream=True, on_event=on_event, **wait))
            if message and runs[-1].status == "done":
                runs.append(session.send(message, stream=True, on_event=on_event, **wait))
            elif message:
                print(f"cairn: the message was not sent: the session is {runs[-1].status}", file=sys.stderr)
        except (DecisionError, SessionError) as exc:
            error = CliError(str(exc), USAGE)
            error.result = merge(runs) if runs else None
            raise error from exc
        return merge(runs)

    return execute(session, opts, ns.output_format, work)


def _nothing_to_do(session: Any, output_format: str) -> int:
    """A finished session resumed with nothing to send: say so once (json: its standing)."""
    from cairn.graph.apps.cli.output import HeadlessOutput

    try:
        if output_format != "text":
            result = session.runs.status_now()
            HeadlessOutput(output_format).finish(result, [])
        print(f"session {session.id} is done: nothing to do; add -p MESSAGE to continue it", file=sys.stderr)
    finally:
        session.close()
    return 0


def merge(runs: list[Any]) -> Any:
    """One RunResult for several runs of one resume (decide, then the message): the last run's
    outcome, every call of every run, usage summed, elapsed time added up."""
    if len(runs) == 1:
        return runs[0]
    by_id: dict[str, Any] = {}
    for run in runs:
        for call in run.tool_calls:
            by_id.pop(call.call_id, None)  # a later state of the same call replaces the earlier one
            by_id[call.call_id] = call
    from cairn.graph.core.cost.report import merge_usage  # issue 34 hook-in: costs add up, budgets do not

    usage = merge_usage([run.usage for run in runs])
    return runs[-1].model_copy(
        update={
            "tool_calls": list(by_id.values()),
            "usage": usage,
            "elapsed_s": sum(r.elapsed_s for r in runs),
        }
    )
