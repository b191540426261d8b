"""The generic judge: what a program without a handler does, read from its record alone.

A record states which options take a value, which option values and operands are files it
reads or writes, which options run a program, and whether its output is decoded data
(:class:`cairn.policy.shell.programs.Program`); :func:`judge` turns that into a
:class:`Classified`.  Programs whose arguments embed code (sed, awk, find, git, jq ...) keep a
handler instead.
"""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import Program
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options
from cairn.policy.vocab import words

__all__ = ["judge", "judged"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

#: Long options whose value is a file it reads, for every GNU program with file operands.
_PATH_VALUED = words(
    """--files0-from --exclude-from --files-from --reference --relative-to --relative-base
    --magic-file --from-file --to-file"""
)


def judged(record: Program | None) -> bool:
    """Whether :func:`judge` decides for this record (it has no handler and says what it reads)."""
    return record is not None and not record.handler and bool(record.kind or record.operands)


def judge(record: Program, args: list[str]) -> Classified:
    """``record.name args`` as its record states it."""
    name = record.name
    if record.operands == "command":
        return _wrapped(record, args)
    opts, files = split_args(args, *value_options(name))
    files = files if record.operands else []  # tr's operands are sets, not files
    given = {o for o, _ in opts}
    for opt, value in opts:
        if opt in record.runs_with:
            return _c("exec", HIGH, f"{name} {opt} runs the program {value!r}")
    if record.pattern_with is not None and not given & record.pattern_with:
        files = files[1:]
    decoder = record.decodes or bool(given & record.decodes_with)
    if record.writes_second and len(files) >= 2:
        return _c(
            "write",
            MEDIUM,
            f"{name} writes {files[1]}",
            reads=files[:1],
            writes=files[1:2],
            auto_edit=True,
            decoder=decoder,
        )
    if record.operands == "write":
        return _written(record, files, [v for o, v in opts if v and o in record.reads_with])
    path_valued = record.reads_with | (_PATH_VALUED if record.operands else frozenset())
    reads = files + [v for o, v in opts if v and o in path_valued]
    if not files and (record.here or given & record.here_with):
        reads.append(".")
    outputs = [(o, v) for o, v in opts if o in record.writes_with and v]
    if outputs:
        opt, value = outputs[0]
        return _c(
            "write",
            MEDIUM,
            f"{name} {opt} writes {value}",
            reads=reads,
            writes=[v for _, v in outputs],
            auto_edit=True,
        )
    kind = record.kind or record.operands
    return _c(kind, LOW, f"{name} {record.says}", reads=reads, decoder=decoder)


def _written(record: Program, files: list[str], reads: list[str]) -> Classified:
    if not files:
        return _c("neutral", LOW, f"{record.name} with no file", reads=reads)
    return _c(
        "write",
        MEDIUM,
        f"{record.name} {record.says} {' '.join(files)}",
        writes=files,
        reads=reads,
        destructive=record.destructive,
        auto_edit=record.edits,
    )


def _wrapped(record: Program, args: list[str]) -> Classified:
    opts, rest = split_args(args, *value_options(record.name), stop_at_operand=True)
    writes = [v for o, v in opts if o in record.writes_with and v]
    rest = rest[record.skip :]
    if record.skip_number and rest and rest[0].isdecimal():
        rest = rest[1:]
    if not rest:
        return _c("neutral", LOW, f"{record.name} with no command", writes=writes)
    return _c("wrapper", LOW, f"{record.name} runs {rest[0]}", inner=rest, writes=writes)
