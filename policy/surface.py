"""The auto-allow surface: per program, what runs without asking (``cairn policy programs``).

For each program the shell classifier may judge read-only, the options it accepts without a
person, the paths it may read, and its example commands, so a reviewer can audit in one screen
what the policy lets run unasked.  Read from the program records (``policy/shell/programs/``)
and, for what no record covers, the command tables; nothing here restates a record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.policy.shell.programs import Program

__all__ = ["Example", "ProgramSurface", "programs"]

#: What a reader may read without a person, whatever the program.
READS_OPERANDS = (
    "its file operands and file-valued options, when they are ordinary files inside the workspace "
    "(outside the workspace or a credential: asks)"
)
READS_NOTHING = "no files (prints facts about the system or the shell)"


@dataclass(frozen=True)
class Example:
    """An example command of a record and the decision it gets in the default mode."""

    command: str
    decision: str

    def to_dict(self) -> dict[str, str]:
        return {"command": self.command, "decision": self.decision}


@dataclass(frozen=True)
class ProgramSurface:
    """One program's auto-allow surface."""

    name: str
    category: str
    #: Options that run without asking: ``-n``, ``-w VALUE``, ``--width=VALUE``, ``-NUM``.
    options: tuple[str, ...]
    reads: str
    #: Where the facts come from: the record (``programs.readers``) or the table (``safeflags``).
    source: str
    examples: tuple[Example, ...] = ()
    #: Anything more a reviewer must know (``only --version``, ``options judged by a handler``).
    notes: tuple[str, ...] = field(default=())
    #: Its operands are files it reads or lists (``cat FILE``), not a pattern or a script.
    operand_files: bool = True
    #: Its handler parses its options (sed, awk, find, git): the examples show what runs.
    options_by_handler: bool = False
    #: Options the record knows that always ask (``sort -o FILE``), with their arity.
    asks: tuple[str, ...] = ()
    #: Who judges its options when the record lists none: ``"handler"`` or ``"rules"`` (kill, socat).
    judged_by: str = "handler"

    @property
    def runs_unasked(self) -> bool:
        """Some use runs without asking: an allowed option, an allowed example, or a table entry."""
        if not self.source.startswith("policy/shell/programs/"):
            return True
        return bool(self.options) or any(e.decision == "allow" for e in self.examples)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "options": list(self.options),
            "reads": self.reads,
            "examples": [e.to_dict() for e in self.examples],
            "notes": list(self.notes),
            "source": self.source,
            "operand_files": self.operand_files,
            "runs_unasked": self.runs_unasked,
            "options_by_handler": self.options_by_handler,
            "judged_by": self.judged_by,
            "asks": list(self.asks),
        }


def programs(name: str | None = None) -> list[ProgramSurface]:
    """Every program that can run without asking, sorted by name; or the record of ``name``
    (also when every use of it asks, as for ``pytest``).

    The program records, plus what the command tables state outside any record: builtins that
    read nothing, listers of system state, and programs whose ``--version`` runs unasked.
    """
    found = {p.name: p for p in _table_extras()}
    recorded = {p.name: p for p in _from_records()}
    if name is not None:
        hit = recorded.get(name) or found.get(name)
        return [hit] if hit else []
    # a record under which nothing runs unasked (curl) leaves the table's `curl --version`
    found.update({n: p for n, p in recorded.items() if p.runs_unasked or n not in found})
    return sorted((p for p in found.values() if p.runs_unasked), key=lambda p: p.name)


def _from_records() -> list[ProgramSurface]:
    from cairn.policy.shell import programs as records_module

    return [_record_surface(record) for record in records_module.records()]


def _record_surface(record: Program) -> ProgramSurface:
    examples = tuple(
        Example(str(command), decision)
        for decision in ("allow", "ask", "deny")
        for command in getattr(record, decision)
    )
    options = tuple(option.text for option in record.options) + _number_forms(record)
    asks = tuple(f"-{c} VALUE" for c in getattr(record, "asks_valued", ""))
    asks += tuple(f"--{n}=VALUE" for n in sorted(getattr(record, "asks_long_valued", ())))
    notes = tuple(record.notes)
    by_rules = bool(getattr(record, "rules", ())) and not record.handler
    if record.handler:
        notes += (f"its arguments are judged by the handler {record.handler}",)
    elif by_rules:
        notes += ("its arguments are judged by its record's rules (policy/shell/judge.py)",)
    if record.env:
        notes += ("asks when set before it: " + ", ".join(record.env),)
    return ProgramSurface(
        name=record.name,
        category=record.category,
        options=options,
        reads=_READS.get(
            record.operands,
            READS_BY_RULES if by_rules else READS_BY_HANDLER,
        ),
        source=f"policy/shell/programs/{record.module}.py",
        examples=examples,
        notes=notes,
        operand_files=record.operands in ("read", "list"),
        options_by_handler=bool(getattr(record, "options_by_handler", False))
        or (bool(record.handler) and not options),
        asks=asks,
        judged_by="rules" if by_rules else "handler",
    )


#: What a record's ``operands`` says it may read.
_READS = {
    "read": READS_OPERANDS,
    "list": "lists its operands (and below them), when they are inside the workspace "
    "(outside the workspace or a credential: asks)",
    "write": "nothing unasked: it writes its file operands, so every use asks",
    "command": "what the command it runs reads (that command is judged as its own unit)",
}
READS_BY_HANDLER = "what its handler finds in its arguments, each path judged as a read inside the workspace"
READS_BY_RULES = "what its rules find in its arguments, each path judged as a read inside the workspace"


def _number_forms(spec: Any) -> tuple[str, ...]:
    forms = [("numeric", "-NUM"), ("plus", "+NUM"), ("plus_text", "+TEXT")]
    return tuple(text for attr, text in forms if getattr(spec, attr, False))


def _table_extras() -> list[ProgramSurface]:
    """Programs the command tables state outside any record: builtins that read nothing,
    listers of system state, and programs whose ``--version`` runs unasked."""
    from cairn.policy.shell import cmdtables, safeflags

    harmless = getattr(safeflags, "HARMLESS_OPTIONS", frozenset())
    free_form = getattr(safeflags, "FREE_FORM", frozenset())
    out: dict[str, ProgramSurface] = {}
    listers = frozenset(getattr(cmdtables, "LISTERS_NO_PATHS", ()))
    for name in sorted(listers | frozenset(getattr(cmdtables, "NEUTRAL", ()))):
        category = "list" if name in listers else "neutral"
        notes: tuple[str, ...] = (
            ("any option (none reads files, writes or runs programs)",) if name in harmless else ()
        )
        if name in free_form:
            notes = ("arguments judged by its own handler",)
        out[name] = ProgramSurface(
            name, category, (), READS_NOTHING, "cmdtables", notes=notes, operand_files=False
        )
    for name in sorted(getattr(cmdtables, "VERSION_SAFE", ())):
        if name in out:
            continue
        if name in free_form:  # git, find, sed, awk: their handler judges every use
            notes = ("arguments judged by its own handler",)
            out[name] = ProgramSurface(
                name, "handler", (), READS_BY_HANDLER, "handlers", notes=notes, operand_files=False
            )
            continue
        notes = ("only to print its version: any other use is judged as that program",)
        out[name] = ProgramSurface(
            name,
            "version",
            ("--version", "-V", "-v"),
            "no files",
            "cmdtables.VERSION_SAFE",
            notes=notes,
            operand_files=False,
        )
    return list(out.values())
