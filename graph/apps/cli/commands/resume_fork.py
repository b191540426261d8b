"""``cairn resume SESSION --fork [--at CHECKPOINT | --turn N]``: go on in a copy of the session."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cairn.graph.apps.cli.exits import CliError


def fork_session(session: Any, ns: argparse.Namespace) -> Any:
    """The fork (the source is closed); ``--at``/``--turn`` without ``--fork`` is a usage error."""
    from cairn.graph.session.errors import SessionError

    if not ns.fork:
        session.close()
        raise CliError("--at and --turn choose where a fork starts: add --fork")
    try:
        forked = session.fork(ns.at, turn=ns.turn)
    except SessionError as exc:
        session.close()
        raise CliError(str(exc)) from exc
    where = f"checkpoint {ns.at}" if ns.at else (f"before turn {ns.turn}" if ns.turn else "its latest state")
    print(f"cairn: forked session {session.id} at {where} into {forked.id}", file=sys.stderr)
    session.close()
    return forked
