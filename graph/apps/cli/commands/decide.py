"""``cairn decide ID --approve … | --reject … | --retry … | --cancel …``: record, do not run.

The decisions go into the database for the run that is waiting on the session (``cairn -p
… --wait`` on the machine that holds the workspace), which applies them and continues.  When
no run is waiting, the next ``cairn resume ID`` applies them.  ``cairn resume ID --approve …``
lands here too when another process holds the session.
"""

from __future__ import annotations

import argparse

from cairn.graph.apps.cli import decision_flags
from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options


def run_decide(ns: argparse.Namespace, opts: Options) -> int:
    if not decision_flags.given(ns):
        raise CliError("what to decide? give --approve/--reject (or --retry/--cancel) CALL_ID|all")
    from cairn.graph.apps.cli.commands.resume import open_session

    session = open_session(ns, opts)
    from cairn.graph.apps.cli.handover import record

    try:
        return record(session, ns)
    finally:
        session.close()
