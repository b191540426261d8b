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

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "category": self.category,
            "options": list(self.options),
            "reads": self.reads,
            "examples": [e.to_dict() for e in self.examples],
            "notes": list(self.notes),
            "source": self.source,
        }


def programs(name: str | None = None) -> list[ProgramSurface]:
    """Every program that can run without asking (or only ``name``), sorted by name."""
    found = _from_records()
    if found is None:
        found = _from_tables()
    if name is not None:
        found = [p for p in found if p.name == name]
    return sorted(found, key=lambda p: p.name)


def _from_records() -> list[ProgramSurface] | None:
    """The program records' view, once ``cairn.policy.shell.programs`` offers ``records()``."""
    try:
        from cairn.policy.shell import programs as records_module  # type: ignore[attr-defined]
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
    options = getattr(record, "options", ())
    shown = tuple(_option_text(o) for o in (options.values() if isinstance(options, dict) else options))
    return ProgramSurface(
        name=record.name,
        category=str(getattr(record, "category", "")),
        options=shown,
        reads=str(getattr(record, "reads", "") or READS_OPERANDS),
        source=str(getattr(record, "module", type(record).__module__)),
        examples=examples,
    )


def _option_text(option: Any) -> str:
    if isinstance(option, str):
        return option
    text = getattr(option, "text", None) or getattr(option, "name", None) or str(option)
    return str(text)


def _from_tables() -> list[ProgramSurface]:
    """Until the records land: the reader table with its option specs, the listers, the neutral
    builtins and the programs whose ``--version`` runs unasked."""
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
    for name in sorted(cmdtables.LISTERS_NO_PATHS | cmdtables.NEUTRAL):
        if name in out:
            continue
        category = "list" if name in cmdtables.LISTERS_NO_PATHS else "neutral"
        harmless = name in safeflags.HARMLESS_OPTIONS
        notes = ("any option (none reads files, writes or runs programs)",) if harmless else ()
        if name in safeflags.FREE_FORM:
            notes = ("arguments judged by its own handler",)
        out[name] = ProgramSurface(name, category, (), READS_NOTHING, "cmdtables", notes=notes)
    for name in sorted(cmdtables.VERSION_SAFE):
        if name in out:
            continue
        if name in safeflags.FREE_FORM:  # git, find, sed, awk: their handler judges every use
            notes = ("arguments judged by its own handler",)
            out[name] = ProgramSurface(name, "handler", (), READS_OPERANDS, "handlers", notes=notes)
            continue
        notes = ("only to print its version: any other use is judged as that program",)
        options = ("--version", "-V", "-v")
        out[name] = ProgramSurface(
            name, "version", options, "no files", "cmdtables.VERSION_SAFE", notes=notes
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
    if spec.numeric:
        shown.append("-NUM")
    if spec.plus:
        shown.append("+NUM")
    if spec.plus_text:
        shown.append("+TEXT")
    return tuple(shown)
