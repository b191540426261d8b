"""Known-safe options of git's read-only subcommands (see :mod:`cairn.policy.shell.safeflags`).

The option lists are data in :mod:`cairn.policy.shell.programs.git`, with the subcommands.
"""

from __future__ import annotations

from cairn.policy.shell.programs.git import GLOBAL_VALUED, LONG, LONG_VALUED, subcommand

__all__ = ["takes_next", "unsafe_git_option"]


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
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "--":
            return None
        if not arg.startswith("-") or arg == "-":
            continue
        if arg.startswith("--"):
            key, eq, _ = arg[2:].partition("=")
            if key in LONG_VALUED:
                i += takes_next(rest, i, eq)
                continue
            if key in LONG:
                continue
            return arg.split("=", 1)[0]
        if arg[1:].isdigit():
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter in valued:
                i += 0 if arg[k + 1 :] else takes_next(rest, i, "")
                break
            if letter not in flags:
                return f"-{letter}" if len(arg) > 2 else arg
    return None


def takes_next(args: list[str], i: int, eq: str) -> int:
    """1 when the next word is this option's value.  A next word that looks like an option is
    never swallowed as a value, so no option can hide behind one (it is checked itself)."""
    return 0 if eq or i >= len(args) or args[i].startswith("-") else 1
