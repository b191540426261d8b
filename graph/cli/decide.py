"""``cairn decide ID --approve … | --reject … | --retry … | --cancel …``: record, do not run.

The decisions go into the database for the run that is waiting on the session (``cairn -p
… --wait`` on the machine that holds the workspace), which applies them and continues.  When
no run is waiting, the next ``cairn resume ID`` applies them.  ``cairn resume ID --approve …``
lands here too when another process holds the session.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cairn.graph.cli import decision_flags
from cairn.graph.cli.exits import USAGE, CliError
from cairn.graph.cli.options import Options


def run_decide(ns: argparse.Namespace, opts: Options) -> int:
    if not decision_flags.given(ns):
        raise CliError("what to decide? give --approve/--reject (or --retry/--cancel) CALL_ID|all")
    from cairn.graph.cli.resume import open_session

    session = open_session(ns, opts)
    try:
        return record(session, ns)
    finally:
        session.close()


def record(session: Any, ns: argparse.Namespace) -> int:
    """Validate the flags against the paused calls, record them, say who will apply them."""
    from cairn.checkpoints.runlock import owner_label
    from cairn.graph.session.decisions import DecisionError
    from cairn.graph.session.session import SessionError

    pending = session.pending()
    decisions = decision_flags.build_decisions(ns, pending, status=session.status)
    decision_flags.check_complete(decisions, pending)
    try:
        session.record_decisions(decisions, by=owner_label())
    except (DecisionError, SessionError) as exc:
        raise CliError(str(exc), USAGE) from exc
    what = f"recorded {len(decisions)} decision(s) for session {session.id}"
    if session.held_elsewhere():
        print(f"{what}; the run waiting on it applies them and continues", file=sys.stderr)
    else:
        print(
            f"{what}; no run is waiting on it now: `cairn resume {session.id}` applies them", file=sys.stderr
        )
    return 0
