"""The dispatch table from command name to handler: taken from the program records.

A program whose arguments embed code names its handler in its record (``handler="sedawk.sed"``);
every other program is judged from its record alone (:mod:`cairn.policy.shell.judge`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from cairn.policy.shell.programs import records
from cairn.policy.shell.result import Classified

__all__ = ["HANDLERS"]

Handler = Callable[[str, list[str]], Classified]


def _resolve(spec: str) -> Handler:
    module, function = spec.rsplit(".", 1)
    handler: Handler = getattr(importlib.import_module(f"cairn.policy.shell.{module}"), function)
    return handler


HANDLERS: dict[str, Handler] = {r.name: _resolve(r.handler) for r in records() if r.handler}
