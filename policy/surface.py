"""The auto-allow surface: per program, what runs without asking (``cairn policy programs``).

For each program the shell classifier may judge read-only, the options it accepts without a
person, the paths it may read, and its example commands, so a reviewer can audit in one screen
what the policy lets run unasked.  Read from the program records (``policy/shell/programs/``)
when they exist, else from the command tables they replace; nothing here restates a record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
        }


def programs(name: str | None = None) -> list[ProgramSurface]:
    """Every program that can run without asking, sorted by name; or the record of ``name``
    (also when every use of it asks, as for ``pytest``).

    The program records when ``cairn.policy.shell.programs`` offers ``records()`` (else the
    reader table and its option specs they replace), plus what the command tables still state
    outside any record: builtins that read nothing, listers of system state, and programs whose
    ``--version`` runs unasked.
    """
    found = {p.name: p for p in _table_extras()}
    recorded = _from_records()
    found.update({p.name: p for p in (recorded if recorded is not None else _from_table_specs())})
    if name is not None:
        return [found[name]] if name in found else []
    listed = [p for p in found.values() if p.runs_unasked]
    return sorted(listed, key=lambda p: p.name)


def _from_records() -> list[ProgramSurface] | None:
    """The program records' view, once ``cairn.policy.shell.programs`` offers ``records()``."""
    try:
        from cairn.policy.shell import programs as records_module
    except ImportError:
        return None
    records = getattr(records_module, "records", None)
    if records is None:
        return None
    return [_record_surface(record) for record in records()]


def _record_surface(record: Any) -> ProgramSurface:
    examples = tuple(
        Example(str(command), decision)
        for decision in ("allow", "ask", "deny")
        for command in getattr(record, decision, ()) or ()
    )
    options = tuple(_option_text(o) for o in getattr(record, "options", ()))
    options += _number_forms(record)
    operands = str(getattr(record, "operands", "read"))
    notes = tuple(getattr(record, "notes", ()) or ())
    if getattr(record, "handler", ""):
        notes += (f"arguments that embed code are judged by {record.handler}",)
    if getattr(record, "env", ()):
        notes += ("asks when set before it: " + ", ".join(record.env),)
    return ProgramSurface(
        name=record.name,
        category=str(getattr(record, "category", "")),
        options=options,
        reads=_READS.get(operands, READS_BY_HANDLER),
        source=f"policy/shell/programs/{getattr(record, 'module', '?')}.py",
        examples=examples,
        notes=notes,
        operand_files=operands in ("read", "list"),
        options_by_handler=bool(getattr(record, "handler", "")) and not options,
    )


#: What a record's ``operands`` says it may read.
_READS = {
    "read": READS_OPERANDS,
    "list": "lists its operands (and below them), when they are inside the workspace "
    "(outside the workspace or a credential: asks)",
}
READS_BY_HANDLER = "what its handler finds in its arguments, each path judged as a read inside the workspace"


def _option_text(option: Any) -> str:
    return str(option) if isinstance(option, str) else str(getattr(option, "text", option))


def _number_forms(spec: Any) -> tuple[str, ...]:
    forms = [("numeric", "-NUM"), ("plus", "+NUM"), ("plus_text", "+TEXT")]
    return tuple(text for attr, text in forms if getattr(spec, attr, False))


def _from_table_specs() -> list[ProgramSurface]:
    """Until the records land: the reader table with its option specs."""
    from cairn.policy.shell import cmdtables, safeflags
    from cairn.policy.shell.result import READ_ONLY_CATEGORIES

    out: dict[str, ProgramSurface] = {}
    for name, category in cmdtables.READERS.items():
        spec = safeflags.SPECS.get(name)
        options = _spec_options(spec) if spec is not None else ()
        notes = () if spec is not None else ("no option runs without asking",)
        out[name] = ProgramSurface(name, category, options, READS_OPERANDS, "safeflags", notes=notes)
    for name, spec in safeflags.SPECS.items():  # searchers and filters judged by a handler
        if name not in out:
            category = _category(name)
            notes: tuple[str, ...] = ()
            if category not in READ_ONLY_CATEGORIES:
                category, notes = (
                    "handler",
                    ("only the forms its handler judges read-only (archive listings)",),
                )
            out[name] = ProgramSurface(
                name, category, _spec_options(spec), READS_OPERANDS, "safeflags", notes=notes
            )
    return list(out.values())


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


def _category(name: str) -> str:
    from cairn.policy.shell.commands import classify

    try:
        return classify([name, "README.md"]).category
    except Exception:
        return "handler"


def _spec_options(spec: Any) -> tuple[str, ...]:
    shown = [f"-{letter}" for letter in spec.flags]
    shown += [f"-{letter} VALUE" for letter in spec.valued]
    shown += [f"--{name}" for name in sorted(spec.long)]
    shown += [f"--{name}=VALUE" for name in sorted(spec.long_valued)]
    return (*shown, *_number_forms(spec))
