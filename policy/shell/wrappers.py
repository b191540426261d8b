"""Commands that run other commands: wrappers, shells, eval, xargs, interpreters.

A wrapper's own risk is judged here; the command it wraps comes back as ``inner`` (classified
as its own unit) or, for code passed as a string, as ``nested_code`` (parsed and analysed).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import record
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["env", "xargs"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _after_options(
    args: list[str],
    short_values: str,
    long_values: Collection[str] = (),
    long_names: Collection[str] | None = None,
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Options before the wrapped command, and the wrapped command's argv."""
    opts, rest = split_args(args, short_values, long_values, stop_at_operand=True, long_names=long_names)
    return opts, rest


def env(name: str, args: list[str]) -> Classified:
    """env [OPTION]... [NAME=VALUE]... [COMMAND]: its options from its record (``-`` is ``-i``)."""
    found = record(name)
    assert found is not None  # programs/shell_words.py
    lead = 0
    while lead < len(args) and args[lead] == "-":
        lead += 1
    opts, rest = _after_options(args[lead:], *value_options(name))  # exact long names only
    known = {o.name for o in found.options}
    strange = next((o for o, _ in opts if o not in known), None)
    if strange is not None:
        return _c("general", HIGH, f"env {strange} is not understood")
    split_string = next((v or "" for o, v in opts if o in ("-S", "--split-string")), None)
    chdir = next((v for o, v in opts if o in ("-C", "--chdir") and v), None)
    assignments: list[str] = []
    while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
        assignments.append(rest.pop(0))
    if split_string is not None:
        return _c(
            "wrapper",
            MEDIUM,
            "env -S runs a command line given as one string",
            nested_code=[" ".join([split_string, *rest])],
        )
    if not rest:
        return _c("general", MEDIUM, _PRINTS_ENV.format(name="env"), assignments=assignments)
    result = _c("wrapper", LOW, f"env runs {rest[0]}", inner=rest)
    result.reads = [chdir] if chdir else []
    result.assignments = assignments
    return result


_PRINTS_ENV = "{name} prints every variable of the environment (values the secret filter may miss)"


def xargs(name: str, args: list[str]) -> Classified:
    xargs_record = record("xargs")
    assert xargs_record is not None
    long_names = xargs_record.long_names
    opts, rest = _after_options(args, *value_options(name), long_names=long_names)
    strange = next((o for o, _ in opts if o.startswith("--") and o not in long_names), None)
    if strange is not None:
        return _c("general", HIGH, f"xargs {strange} is not an xargs option")
    reads = [v for o, v in opts if o in ("-a", "--arg-file") and v]
    inner = rest or ["echo"]
    replace = next((v or "{}" for o, v in opts if o in ("-I", "-i", "--replace")), None)
    result = _c(
        "wrapper",
        LOW,
        f"xargs runs {inner[0]} with arguments read from its input",
        inner=inner,
        inner_extra_operands=True,
        reads=reads,
    )
    if replace:
        result.inner_placeholder = replace
    return result


# -- shells and interpreters -------------------------------------------------------------------------
