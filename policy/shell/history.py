"""The ``history`` builtin: it can write its list (which ``history -s`` fills with any text) to
a file, so ``history -w ~/.bashrc`` is a write to a shell startup file, and ``history -r FILE``
reads a file."""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["history"]

_DEFAULT_FILE = "~/.bash_history"  # $HISTFILE is not known statically; bash's default


def history(name: str, args: list[str]) -> Classified:
    flags = ""
    operands: list[str] = []
    for arg in args:
        if arg.startswith("-") and len(arg) > 1 and not operands:
            flags += arg[1:]
        else:
            operands.append(arg)
    target = operands[0] if operands and set(flags) & set("awrn") else _DEFAULT_FILE
    if set(flags) & set("aw"):
        return _c(
            "write",
            RiskLevel.MEDIUM,
            f"history -{flags} writes the history list to {target}",
            writes=[target],
        )
    if set(flags) & set("rn"):
        return _c("read", RiskLevel.LOW, f"history -{flags} reads {target}", reads=[target])
    return _c("neutral", RiskLevel.LOW, "history only changes or lists this shell's history")
