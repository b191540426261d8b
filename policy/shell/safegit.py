"""Known-safe options of git's read-only subcommands (see :mod:`cairn.policy.shell.safeflags`).

The option lists are data in :mod:`cairn.policy.shell.programs.git`, with the subcommands.
"""

from __future__ import annotations

from cairn.policy.shell.options import first_unknown
from cairn.policy.shell.programs.git import GLOBAL_VALUED, LONG, LONG_VALUED, subcommand

__all__ = ["unsafe_git_option"]


def _subcommand(args: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GLOBAL_VALUED else 1
    if i >= len(args):
        return "", []
    return args[i], args[i + 1 :]


def unsafe_git_option(args: list[str]) -> str | None:
    """The first option of a read-only git subcommand not known to be safe, or ``None``.

    Subcommands with their own strict listing check (``branch``, ``tag``, ``remote``,
    ``config``, ``notes``, ``worktree``...) are judged by ``gitcmd``/``gitmore`` alone.
    """
    sub, rest = _subcommand(args)
    found = subcommand(sub)
    short = found.short if found else None
    if short is None:
        return None
    flags, valued = short
    return first_unknown(rest, flags, valued, LONG, LONG_VALUED, numeric=True)
