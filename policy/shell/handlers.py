"""The dispatch table from command name to handler (assembled from the handler modules)."""

from __future__ import annotations

from collections.abc import Callable

from cairn.policy.shell import network, search, shellbuiltins, textcmds, wrappers, writecmds
from cairn.policy.shell.gitcmd import git
from cairn.policy.shell.history import history
from cairn.policy.shell.result import Classified

__all__ = ["HANDLERS"]

HANDLERS: dict[str, Callable[[str, list[str]], Classified]] = {}
HANDLERS.update(search.HANDLERS)
HANDLERS.update(textcmds.HANDLERS)
HANDLERS.update(shellbuiltins.HANDLERS)
HANDLERS.update(writecmds.HANDLERS)
HANDLERS.update(network.HANDLERS)
HANDLERS["git"] = git
HANDLERS["history"] = history
for _name in ("sudo", "su", "doas", "pkexec", "run0", "sudoedit"):
    HANDLERS[_name] = wrappers.privilege
HANDLERS.update(
    {
        "env": wrappers.env,
        "command": wrappers.command_builtin,
        "builtin": wrappers.command_builtin,
        "exec": wrappers.exec_builtin,
        "eval": wrappers.eval_builtin,
        "trap": wrappers.trap_builtin,
        "watch": wrappers.watch,
        "flock": wrappers.flock,
        "busybox": wrappers.busybox,
        "xargs": wrappers.xargs,
        "parallel": wrappers.parallel,
    }
)
