"""Recording decisions for a run held by another process (``cairn decide``, ``resume --approve``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cairn.graph.apps.cli import decision_flags
from cairn.graph.apps.cli.exits import USAGE, CliError


def record(session: Any, ns: argparse.Namespace) -> int:
    """Validate the flags against the paused calls, record them, say who will apply them."""
    from cairn.checkpoints.runlock import owner_label
    from cairn.graph.session.decision_forms import DecisionError
    from cairn.graph.session.session import SessionError

    pending = session.pending()
    decisions = decision_flags.build_decisions(ns, pending, status=session.status)
    decision_flags.check_complete(decisions, pending)
    try:
        session.record_decisions(decisions, by=owner_label())
    except (DecisionError, SessionError) as exc:
        raise CliError(str(exc), USAGE) from exc
    what = f"recorded {len(decisions)} decision(s) for session {session.id}"
    if session.waiting.held_elsewhere():
        print(f"{what}; the run waiting on it applies them and continues", file=sys.stderr)
    else:
        print(
            f"{what}; no run is waiting on it now: `cairn resume {session.id}` applies them", file=sys.stderr
        )
    return 0
