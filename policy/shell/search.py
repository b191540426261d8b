"""Handlers for search commands whose arguments need more than a record: rg, find, fd, locate.

Read-only unless an argument makes them run programs (``find -exec``, ``rg --pre``) or write
(``find -delete``, ``find -fprint``).  grep and ag are judged from their records."""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.findcmd import fd
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["HANDLERS"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def rg(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    names = {o for o, _ in opts}
    for danger in ("--pre", "--hostname-bin"):
        if danger in names:
            value = next(v for o, v in opts if o == danger)
            return _c("exec", HIGH, f"rg {danger} runs the program {value!r} on every file")
    no_pattern = bool(names & {"--files", "--type-list", "--help", "-h"})
    has_pattern = bool(names & {"-e", "-f", "--regexp", "--file"})
    files = operands if (has_pattern or no_pattern) else operands[1:]
    reads = (files or ["."]) + [v for o, v in opts if v and o in ("-f", "--file", "--ignore-file")]
    return _c("search", LOW, "rg only searches", reads=reads, lists_paths="--files" in names)


def locate(name: str, args: list[str]) -> Classified:
    return _c("search", MEDIUM, f"{name} lists files anywhere on the machine")


HANDLERS = {
    "fdfind": fd,
    "locate": locate,
    "mlocate": locate,
    "plocate": locate,
}
