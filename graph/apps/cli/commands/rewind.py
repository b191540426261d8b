"""``cairn rewind SESSION_ID [CALL_ID | --turn N | --redo]``: go back to before a call or a turn."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cairn.graph.apps.cli.exits import ERROR, USAGE, CliError
from cairn.graph.apps.cli.options import Options
from cairn.tools.file_ops.names import escape_data


def run_rewind(ns: Any, opts: Options) -> int:
    from cairn.graph.session import Session, SessionError

    session_id, call_id = _which(ns, opts)
    chosen = sum(x is not None and x is not False for x in (call_id, ns.turn, ns.redo or None))
    if chosen > 1 or (chosen == 0 and not ns.last):
        raise CliError("give exactly one of CALL_ID, --turn N or --redo (or --last for the last turn)", USAGE)
    scope = ns.scope or "both"
    try:
        session = Session.resume(session_id, db=opts.db)
    except SessionError as exc:
        raise CliError(str(exc), USAGE) from None
    try:
        for done in session.recovered:
            print(done.summary(), file=sys.stderr)
        if chosen == 0:  # --last alone: the last turn of the latest session
            ns.turn = _last_turn(session)
        if ns.redo:
            result = session.redo(dry_run=ns.dry_run, force=ns.force)
        else:
            result = session.rewind(
                call_id,
                turn=ns.turn,
                code=scope in ("code", "both"),
                conversation=scope in ("conversation", "both"),
                dry_run=ns.dry_run,
                force=ns.force,
            )
    except SessionError as exc:
        raise CliError(str(exc), USAGE) from None
    finally:
        session.close()
    if ns.json:
        json.dump(escape_data(result.to_json()), sys.stdout, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(result.summary())
        for _path, diff in sorted(result.diffs.items()):
            sys.stdout.write(diff)
        if not ns.dry_run and not ns.redo:
            print(f"undo this rewind: cairn rewind {result.session_id} --redo")
    return ERROR if result.not_restored and not ns.dry_run else 0


def _which(ns: Any, opts: Options) -> tuple[str, str | None]:
    """(session id, call id): ``--last`` names the latest session here, so a lone positional
    argument is then the call (``cairn rewind --last CALL_ID``)."""
    if not ns.last:
        if not ns.session_id:
            raise CliError("which session? give a SESSION_ID (see `cairn sessions`) or --last", USAGE)
        return ns.session_id, ns.call_id
    if ns.call_id is not None:
        raise CliError("give a SESSION_ID or --last, not both", USAGE)
    from cairn.graph.apps.cli.commands.resume import resolve_id

    latest = resolve_id(argparse.Namespace(session_id=None, last=True), opts)
    return latest, ns.session_id


def _last_turn(session: Any) -> int:
    from cairn.graph.core.messages import is_person_message

    turns = sum(1 for m in session.history() if is_person_message(m))
    if turns == 0:
        raise CliError(f"session {session.id} has no message of yours to rewind", USAGE)
    return turns
