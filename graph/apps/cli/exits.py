"""Exit codes (documented in ``cairn --help`` and docs/cli.md) and the error that carries one."""

from __future__ import annotations

from cairn.errors import CairnError

DONE = 0
ERROR = 1
USAGE = 2
AWAITING_APPROVAL = 3
INTERRUPTED = 4
CTRL_C = 130

_BY_STATUS = {
    "done": DONE,
    "error": ERROR,
    "max_steps": ERROR,
    "loop": ERROR,
    "awaiting_approval": AWAITING_APPROVAL,
    "interrupted": INTERRUPTED,
}


def code_for(status: str) -> int:
    """The exit code of a run that ended in ``status`` (a RunResult status)."""
    return _BY_STATUS.get(status, ERROR)


class CliError(CairnError):
    """A failure to report in one message and exit with ``code`` (2: usage/config, 1: runtime)."""

    def __init__(self, message: str, code: int = USAGE) -> None:
        super().__init__(message)
        self.code = code
        #: The RunResult of work done before the error was found (a recovered run), if any.
        self.result: object = None
