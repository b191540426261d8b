"""``cairn export SESSION [--format md|json|html] [--out FILE]``: a shareable transcript.

Read-only from the store, like ``cairn show``; secrets the environment filter knows are
redacted (``cairn.graph.core.export.redact``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options


def run_export(ns: Any, opts: Options) -> int:
    from cairn.graph.apps.cli.commands.show import latest_id, open_for_reading
    from cairn.graph.core.cost.config import session_cost_setup
    from cairn.graph.core.export import export_session

    if ns.session_id and ns.last:
        raise CliError("give a SESSION_ID or --last, not both")
    wanted = ns.session_id or latest_id(opts)
    store = open_for_reading(opts.db)
    try:
        record, why = store.sessions.resolve(wanted)
        if record is None:
            raise CliError(f"{why} matching {wanted!r} in {store.location}")
        try:
            pricing = session_cost_setup(Path(record.workspace), None, None)[0]
        except ValueError:
            pricing = None  # a bad [pricing] table: the built-in prices
        text = export_session(store, record.session_id, ns.format, pricing=pricing)
    finally:
        store.close()
    if ns.out:
        Path(ns.out).write_text(text, encoding="utf-8")
        print(f"exported session {record.session_id} to {ns.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
