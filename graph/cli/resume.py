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

from graph.cli.exits import USAGE, CliError
from graph.cli.options import Options, preflight_model
from graph.cli.term import is_tty


def resolve_id(ns: argparse.Namespace, opts: Options) -> str:
    if ns.session_id and ns.last:
        raise CliError("give a SESSION_ID or --last, not both")
    if ns.session_id:
        return ns.session_id
    if not ns.last:
        raise CliError("which session? give a SESSION_ID (see `cairn sessions`) or --last")
    from checkpoints.readonly import list_sessions

    rows = list_sessions(opts.db, opts.workspace_root(), limit=1)
    if not rows:
        raise CliError(f"no sessions in {opts.workspace_root()}; `cairn sessions --all` lists every one")
    return rows[0].session_id


def open_session(ns: argparse.Namespace, opts: Options) -> Any:
    sid = resolve_id(ns, opts)
    opts.apply_env()
    from graph.session import Session, SessionError

    # Only an explicit --model replaces the recorded one ($CAIRN_MODEL is for new sessions).
    model = opts.model_spec() if ns.model else None
    try:
        session = Session.resume(sid, db=opts.db, model=model, mode=opts.approval, max_steps=opts.max_steps)
    except (SessionError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    spec = session.model_spec
    if spec:
        preflight_model(spec)
    return session


def build_decisions(ns: argparse.Namespace, pending: list[Any]) -> dict[str, Any]:
    """The decision flags as ``{call_id: decision}``; ``all`` expands to the calls it can apply to."""
    asking = [c.call_id for c in pending if c.status == "awaiting_approval"]
    stopped = [c.call_id for c in pending if c.status == "interrupted"]
    known = {c.call_id for c in pending}
    decisions: dict[str, Any] = {}
    for value in ns.approve:
        for cid in asking if value == "all" else [value]:
            decisions[cid] = "approve"
    for value in ns.reject:
        cid, message = value, ""
        if value not in known and ":" in value:
            cid, _, message = value.partition(":")
        for one in asking if cid == "all" else [cid]:
            decisions[one] = {"reject": message} if message else "reject"
    for flag, action in ((ns.retry, "retry"), (ns.cancel, "cancel")):
        for value in flag:
            for cid in stopped if value == "all" else [value]:
                decisions[cid] = action
    return decisions


def run_resume(ns: argparse.Namespace, opts: Options) -> int:
    session = open_session(ns, opts)
    pending = session.pending()
    decisions = build_decisions(ns, pending)
    headless = ns.print_prompt is not None or not is_tty(sys.stdin)
    if decisions:
        undecided = [c.call_id for c in pending if c.call_id not in decisions]
        if undecided and headless:
            session.close()
            raise CliError(
                f"every paused call needs a decision; still undecided: {', '.join(undecided)} "
                "(use --approve/--reject for calls awaiting approval, --retry/--cancel for interrupted ones)",
                USAGE,
            )
    if headless:
        return _headless(session, opts, ns, decisions)
    from graph.cli.resume_interactive import resume_interactive

    return resume_interactive(session, opts, decisions)


def _headless(session: Any, opts: Options, ns: argparse.Namespace, decisions: dict[str, Any]) -> int:
    from graph.cli.headless import execute
    from graph.decisions import DecisionError

    message = (ns.print_prompt or "").strip()

    def work(on_event: Any) -> Any:
        if decisions:
            result = session.decide(decisions, stream=True, on_event=on_event)
        else:
            result = session.continue_(stream=True, on_event=on_event)
        if message and result.status == "done":
            result = session.send(message, stream=True, on_event=on_event)
        elif message:
            print(f"cairn: the message was not sent: the session is {result.status}", file=sys.stderr)
        return result

    try:
        return execute(session, opts, ns.output_format, work)
    except DecisionError as exc:
        raise CliError(str(exc), USAGE) from exc
