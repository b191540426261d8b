"""The dispatch table from command name to handler.

A program with a record names its handler there (``handler="writecmds.rm"``), so the table
takes those from the records; the handler modules list only the programs that have no record
(shell builtins, remote shells, compressors, privilege wrappers …).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from cairn.policy.shell import network, search, shellbuiltins, wrappers, writecmds
from cairn.policy.shell.history import history
from cairn.policy.shell.programs import records
from cairn.policy.shell.result import Classified

__all__ = ["HANDLERS"]

Handler = Callable[[str, list[str]], Classified]


def _resolve(spec: str) -> Handler:
    module, function = spec.rsplit(".", 1)
    handler: Handler = getattr(importlib.import_module(f"cairn.policy.shell.{module}"), function)
    return handler


HANDLERS: dict[str, Handler] = {}
HANDLERS.update(search.HANDLERS)
HANDLERS.update(shellbuiltins.HANDLERS)
HANDLERS.update(writecmds.HANDLERS)
HANDLERS.update(network.HANDLERS)
HANDLERS["history"] = history
HANDLERS.update(
    {
        "env": wrappers.env,
        "command": wrappers.command_builtin,
        "builtin": wrappers.command_builtin,
        "exec": wrappers.exec_builtin,
        "eval": wrappers.eval_builtin,
        "trap": wrappers.trap_builtin,
        "busybox": wrappers.busybox,
        "parallel": wrappers.parallel,
    }
)
HANDLERS.update({r.name: _resolve(r.handler) for r in records() if r.handler})
