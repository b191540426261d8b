"""``cairn rewind SESSION_ID [CALL_ID | --turn N | --redo]``: go back to before a call or a turn."""

from __future__ import annotations

import json
import sys
from typing import Any

from cairn.graph.cli.exits import ERROR, USAGE, CliError
from cairn.graph.cli.options import Options
from cairn.tools.file_ops.names import escape_data


def run_rewind(ns: Any, opts: Options) -> int:
    from cairn.graph.session import Session, SessionError

    chosen = sum(x is not None and x is not False for x in (ns.call_id, ns.turn, ns.redo or None))
    if chosen != 1:
        raise CliError("give exactly one of CALL_ID, --turn N or --redo", USAGE)
    scope = ns.scope or "both"
    try:
        session = Session.resume(ns.session_id, db=opts.db)
    except SessionError as exc:
        raise CliError(str(exc), USAGE) from None
    try:
        for done in session.recovered:
            print(done.summary(), file=sys.stderr)
        if ns.redo:
            result = session.redo(dry_run=ns.dry_run, force=ns.force)
        else:
            result = session.rewind(
                ns.call_id,
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
