"""The cairn command with a hook at the start of ``Session.send``, for timing tests.

    python -m tests.support.cli_hooks MARKS_DIR [--self-sigint] -- <cairn arguments>

Runs ``cairn.graph.apps.cli.main`` unchanged except that ``Session.send`` first writes
``MARKS_DIR/sending`` and then waits 0.3 s (or, with ``--self-sigint``, sends this process a
real SIGINT and waits 10 ms): a Ctrl-C lands after the run started and before its graph
does, the window in which the stop flag used to be cleared.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    split = argv.index("--")
    options, cairn_args = argv[:split], argv[split + 1 :]
    marks = Path(options[0])
    self_sigint = "--self-sigint" in options
    from cairn.graph.apps.cli import main as cairn_main
    from cairn.graph.session.session import Session

    original = Session.send

    def send(self: Any, *args: Any, **kwargs: Any) -> Any:
        (marks / "sending").write_text(str(time.time()))
        if self_sigint:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
        else:
            time.sleep(0.3)
        return original(self, *args, **kwargs)

    Session.send = send  # type: ignore[method-assign]
    return cairn_main(cairn_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
