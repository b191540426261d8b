"""Which record decided a verdict, for ``cairn policy check``.

A verdict names its rule (``Verdict.rule``); this names the record behind it: for ``bash``, the
program record of each simple command that decided (every command when all of them only read,
else the ones that need approval); for other tools, the tool's own declared facts (its class,
and its action for per-action tools).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cairn.policy.levels import Decision, Verdict
from cairn.policy.table import canonical_tool_name, tool_class
from cairn.tools.base import call_risk, plan_allows

__all__ = ["RecordUse", "deciding_records"]


@dataclass(frozen=True)
class RecordUse:
    """One record that took part in a verdict: for which part of the call, and what it said."""

    part: str  # the simple command; "" for a tool's own record
    record: str  # "git", "tool memory (action view)"
    category: str
    risk: str
    reason: str
    #: Where the record is stated: a program record's file, the tool class, or the command tables.
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return {
            "part": self.part,
            "record": self.record,
            "category": self.category,
            "risk": self.risk,
            "reason": self.reason,
            "source": self.source,
        }


def deciding_records(tool: str, args: Mapping[str, Any], workspace: Any, verdict: Verdict) -> list[RecordUse]:
    """The records that decided ``verdict`` for the call ``tool(args)`` (never raises)."""
    try:
        name = canonical_tool_name(tool)
        if name == "bash" and isinstance(args.get("command"), str):
            return _shell_records(args["command"], workspace, verdict)
        return _tool_record(name, args, verdict)
    except Exception:  # an explanation must never break the verdict it explains
        return []


def _tool_record(name: str, args: Mapping[str, Any], verdict: Verdict) -> list[RecordUse]:
    cls = tool_class(name)
    if cls is None:
        reason = "[tool_risk] and read_only_tools in the settings, else MEDIUM"
        return [RecordUse("", f"tool {name} (not built in)", "tool", str(verdict.risk), reason)]
    record = f"tool {name}"
    if cls.actions and str(args.get("action")) in cls.actions:
        record += f" (action {args.get('action')})"
    facts = [
        f"risk {call_risk(cls, args)}",
        "plan mode allows it" if plan_allows(cls, args) else "not in plan mode",
    ]
    if cls.path_arg:
        facts.append(f"path argument {cls.path_arg}")
    category = "read" if cls.read_only else ("edit" if cls.path_arg else "tool")
    source = f"{cls.__module__}.{cls.__name__}"
    return [RecordUse("", record, category, str(verdict.risk), ", ".join(facts), source)]


def _shell_records(command: str, workspace: Any, verdict: Verdict) -> list[RecordUse]:
    from cairn.policy.evaluate import as_workspace
    from cairn.policy.shell.analysis import analyse

    units = analyse(command, as_workspace(workspace)).units
    uses = []
    for unit in units:
        name = str(getattr(unit, "record", None) or _program(unit.argv))
        uses.append(
            RecordUse(unit.text, name, unit.category, str(unit.risk), unit.reason, _record_source(name))
        )
    if verdict.decision == Decision.ALLOW and verdict.rule is None:
        return uses
    needing = [use for use, unit in zip(uses, units, strict=True) if not unit.read_only]
    return needing or uses


def _record_source(name: str) -> str:
    from cairn.policy.shell.programs import record

    found = record(name)
    return f"policy/shell/programs/{found.module}.py" if found is not None else "command tables"


def _program(argv: list[str]) -> str:
    return os.path.basename(argv[0]) if argv else "(none)"
