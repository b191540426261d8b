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

from dataclasses import dataclass

from cairn.policy.shell.programs import Program, record, records
from cairn.policy.shell.safegit import takes_next, unsafe_git_option
from cairn.policy.vocab import words

__all__ = ["FREE_FORM", "HARMLESS_OPTIONS", "Spec", "unsafe_option", "value_options"]


@dataclass(frozen=True)
class Spec:
    """Allowed options: short letters without/with a value, long names without/with a value."""

    flags: str = ""
    valued: str = ""
    long: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    numeric: bool = False  # -20 (head -20)
    plus: bool = False  # +5 (tail +5)
    plus_text: bool = False  # +FORMAT (date +%F)


def _spec(record: Program) -> Spec:
    return Spec(
        record.flags,
        record.valued,
        record.long,
        record.long_valued,
        numeric=record.numeric,
        plus=record.plus,
        plus_text=record.plus_text,
    )


#: The allow lists, by program: derived from the program records, where they are stated once.
SPECS: dict[str, Spec] = {r.name: _spec(r) for r in records() if not r.options_by_handler}

#: Builtins and printers whose options cannot read files, write or run programs.
HARMLESS_OPTIONS = frozenset(
    words(
        """true false : sleep wait shift exit return break continue seq expr basename dirname pwd
        cal whoami id groups logname uname arch nproc uptime tty locale getconf clear tput jobs
        dirs times which whereis help type ps pgrep pidof free vmstat iostat lsblk lscpu lsusb
        lspci lsmod who w last lastlog netstat ss top htop"""
    )
)
#: Handled by their own handler's strict parser (or their arguments are not options).
FREE_FORM = frozenset(
    words(
        """echo printf test [ set shopt export declare local readonly typeset history trap exec
        find sed gsed awk gawk mawk nawk flock busybox watch git read unset getopts let"""
    )
)


def unsafe_option(name: str, args: list[str]) -> str | None:
    """The first option of ``name args`` not known to be safe, or ``None``."""
    if name == "git":
        return unsafe_git_option(args)
    if name in FREE_FORM or name in HARMLESS_OPTIONS:
        return None
    spec = SPECS.get(name)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return None
        if arg in ("-", "") or not arg.startswith(("-", "+")):
            continue
        if spec is None:
            return arg
        if arg.startswith("+"):
            if (spec.plus and arg[1:].isdigit()) or spec.plus_text:
                continue
            return arg
        if arg.startswith("--"):
            key, eq, _ = arg[2:].partition("=")
            if key in spec.long_valued:
                i += takes_next(args, i, eq)
                continue
            if key in spec.long:
                continue
            return arg.split("=", 1)[0]
        if spec.numeric and arg[1:].isdigit():
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter in spec.valued:
                i += 0 if arg[k + 1 :] else takes_next(args, i, "")
                break
            if letter not in spec.flags:
                return f"-{letter}" if len(arg) > 2 else arg
    return None


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
