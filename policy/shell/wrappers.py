"""env: its own risk is judged here; the command it runs comes back as ``inner`` (classified as
its own unit) or, for ``env -S STRING``, as ``nested_code`` (parsed and analysed).
"""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import record
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["env"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def env(name: str, args: list[str]) -> Classified:
    """env [OPTION]... [NAME=VALUE]... [COMMAND]: its options from its record (``-`` is ``-i``)."""
    found = record(name)
    assert found is not None  # programs/shell_words.py
    lead = 0
    while lead < len(args) and args[lead] == "-":
        lead += 1
    opts, rest = split_args(args[lead:], *value_options(name), stop_at_operand=True)  # exact names only
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
