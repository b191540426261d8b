"""Known-safe options of the programs that run without asking.

A command the table judges read-only (LOW) runs without a person only if every option it is
given is on its program's list (its record in :mod:`cairn.policy.shell.programs`): "known command with known-safe flags", not "known command
minus dangerous flags".  An option missing from the list (a new one, a rare one, an
abbreviation GNU getopt would expand to something dangerous) makes the command ask.

:func:`unsafe_option` returns the first option not on the list, or ``None``.  Programs in
:data:`FREE_FORM` take arguments that are not options (``echo -n``, ``test -f``) or have their
own strict parser in their handler (``set``, ``shopt``, ``find``, ``sed``, ``awk``, ``git``);
programs in :data:`HARMLESS_OPTIONS` only print facts about the system whatever their options.
Any other program has no list: any option asks.
"""

from __future__ import annotations

from cairn.policy.shell.cmdtables import NEUTRAL, SYSTEM_STATE
from cairn.policy.shell.options import first_unknown
from cairn.policy.shell.programs import Program, record, records
from cairn.policy.shell.programs.git import LONG, LONG_VALUED, subcommand
from cairn.policy.vocab import words

__all__ = ["FREE_FORM", "HARMLESS_OPTIONS", "SPECS", "unsafe_git_option", "unsafe_option", "value_options"]

#: The allow lists, by program: the records themselves, where they are stated once.
SPECS: dict[str, Program] = {r.name: r for r in records() if not r.options_by_handler}

#: Builtins and printers whose options cannot read files, write or run programs.
HARMLESS_OPTIONS = NEUTRAL | SYSTEM_STATE
#: Handled by their own handler's strict parser (or their arguments are not options).
FREE_FORM = frozenset(
    words(
        """echo printf test [ set shopt export declare local readonly typeset history trap exec
        find sed gsed awk gawk mawk nawk flock busybox watch git read unset getopts let"""
    )
)


def unsafe_option(name: str, args: list[str]) -> str | None:
    """The first option of ``name args`` not known to be safe, or ``None``."""
    if name == "git":  # the options of its read-only subcommand (programs/git.py)
        return unsafe_git_option(args)
    if name in FREE_FORM or name in HARMLESS_OPTIONS:
        return None
    spec = SPECS.get(name)
    if spec is None:  # no list: any option is unknown
        return first_unknown(args, "", "", frozenset(), frozenset(), signs="-+")
    plus = "+text" if spec.plus_text else "+num" if spec.plus else ""
    return first_unknown(
        args,
        spec.flags,
        spec.valued,
        spec.long,
        spec.long_valued,
        numeric=spec.numeric,
        plus=plus,
        signs="-+",
        pairs=spec.long_pairs,
    )


def value_options(name: str) -> tuple[str, frozenset[str]]:
    """The options of ``name`` that take a value: short letters, and long names with ``--``.

    The one statement of option arity (the program's record, allowed options and the known
    options that ask): the reader table and the handlers split operands from options with it,
    so a flag can never swallow the path after it (``bat -p /etc/passwd``)."""
    found = record(name)
    if found is None:
        return "", frozenset()
    longs = found.long_valued | found.asks_long_valued
    return found.valued + found.asks_valued, frozenset("--" + n for n in longs)


def unsafe_git_option(args: list[str]) -> str | None:
    """The first option of a read-only git subcommand not known to be safe, or ``None``.

    Subcommands with their own strict listing check (``branch``, ``tag``, ``remote``,
    ``config``, ``notes``, ``worktree``...) are judged by ``gitcmd`` alone.
    """
    valued = {"-" + c for c in value_options("git")[0]}  # git's own -C DIR, -c NAME=VALUE
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in valued else 1
    found = subcommand(args[i]) if i < len(args) else None
    if found is None or found.short is None:
        return None
    flags, valued = found.short
    return first_unknown(args[i + 1 :], flags, valued, LONG, LONG_VALUED, numeric=True)
