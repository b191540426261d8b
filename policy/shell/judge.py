"""The generic judge: what a program without a handler does, read from its record alone.

A record states which options take a value, which option values and operands are files it
reads or writes, which options run a program, and whether its output is decoded data
(:class:`cairn.policy.shell.programs.Program`), and which arguments make it do more (its
rules: :class:`cairn.policy.shell.programs.record.Rule`); :func:`judge` turns that into a
:class:`Classified`.  Programs whose arguments embed code (sed, awk, find, git, jq ...) keep a
handler instead.
"""

from __future__ import annotations

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.programs import Program
from cairn.policy.shell.programs.record import Rule
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options
from cairn.policy.vocab import words

__all__ = ["EFFECTS", "TESTS", "judge", "judged"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

#: Long options whose value is a file it reads, for every GNU program with file operands.
_PATH_VALUED = words(
    """--files0-from --exclude-from --files-from --reference --relative-to --relative-base
    --magic-file --from-file --to-file"""
)


def judged(record: Program | None) -> bool:
    """Whether :func:`judge` decides for this record (it has no handler and says what it reads)."""
    return record is not None and not record.handler and bool(record.kind or record.operands or record.rules)


def judge(record: Program, args: list[str]) -> Classified:
    """``record.name args`` as its record states it."""
    name = record.name
    command = record.operands == "command"
    if record.single_dash:
        opts, files = _single_dash(args, {"-" + n for n in record.long_valued | record.asks_long_valued})
    else:
        opts, files = split_args(args, *value_options(name), stop_at_operand=command)
    for rule in record.rules:
        matched = _holds(rule.when, record, args, opts, files)
        if matched is not None:
            return _ruled(record, rule, matched, (args, opts, files))
    if command:
        return _wrapped(record, opts, files)
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
    reads, writes = _paths(record, opts, files)
    if not files and (record.here or given & record.here_with):
        reads.append(".")
    if writes:
        opt = next(o for o, v in opts if o in record.writes_with and v)
        return _c(
            "write", MEDIUM, f"{name} {opt} writes {writes[0]}", reads=reads, writes=writes, auto_edit=True
        )
    kind = record.kind or record.operands
    lists = bool(given & record.lists_with)
    return _c(kind, LOW, f"{name} {record.says}", reads=reads, decoder=decoder, lists_paths=lists)


Opts = list[tuple[str, str | None]]


def _paths(record: Program, opts: Opts, files: list[str]) -> tuple[list[str], list[str]]:
    """The files it reads (its operands when they are files, file-valued options) and writes."""
    path_valued = record.reads_with | (_PATH_VALUED if record.operands else frozenset())
    reads = (files if record.operands in ("read", "list") else []) + [
        v for o, v in opts if v and o in path_valued
    ]
    reads += _keyed(record.reads_with, files)
    return reads, [v for o, v in opts if o in record.writes_with and v] + _keyed(record.writes_with, files)


def _single_dash(args: list[str], valued: set[str]) -> tuple[Opts, list[str]]:
    """``openssl x509 -in FILE -noout``: each ``-word`` is one option; those in ``valued`` take
    the next word."""
    opts: Opts = []
    files: list[str] = []
    words = iter(args)
    for arg in words:
        if arg.startswith("-") and arg != "-":
            opts.append((arg, next(words, None) if arg in valued else None))
        else:
            files.append(arg)
    return opts, files


def _keyed(keys: frozenset[str], files: list[str]) -> list[str]:
    """The values of ``KEY=VALUE`` operands whose ``KEY=`` is in ``keys`` (``dd of=FILE``)."""
    return [f.partition("=")[2] for f in files if "=" in f and f.partition("=")[0] + "=" in keys]


def _holds(when: str, record: Program, args: list[str], opts: Opts, files: list[str]) -> str | None:
    """What makes a rule's test hold (an option, a word), or ``None`` when none does."""
    given = [o for o, _ in opts]
    for test in when.split():
        if "&" in test:  # socat: every part holds
            found = [_holds(part, record, args, opts, files) for part in test.split("&")]
            if None not in found:
                return found[-1]
            continue
        if test.startswith("^"):  # an argument starts with one of these, any case (socat EXEC:)
            lowered = tuple(test[1:].lower().split(","))
            hit = next((a for a in args if a.lower().startswith(lowered)), None)
            if hit is not None:
                return hit
            continue
        if test.startswith("-") and test != "--first" and test in given:
            return test
        if test.startswith("is:") and test[3:] in args:  # kill -1
            return test[3:]
        if test.endswith("=") and test != "=" and any(f.startswith(test) for f in files):  # dd of=
            return test
        found = {
            "always": "",
            "no-args": "" if not args else None,
            "operands": files[0] if files else None,
            "no-operands": "" if not files else None,
            "--first": "--" if args[:1] == ["--"] else None,
            "+": next((a for a in args if a.startswith("+")), None),
            "=": next((a for a in args if "=" in a), None),
            "/": next((f for f in files if "/" in f), None),
            "other": next((a for a in args if a not in record.accepts), None),
        }.get(test)
        if found is not None:
            return found
    return None


def _ruled(
    record: Program, rule: Rule, matched: str, parsed: tuple[list[str], Opts, list[str]]
) -> Classified:
    args, opts, files = parsed
    reads, writes = _paths(record, opts, files)
    effects = rule.effect.split()
    writes += files if "writes" in effects else files[:1] if "writes-first" in effects else []
    writes += files[1:2] if "writes-second" in effects else []
    if "here" in effects and not writes:
        writes = ["."]
    default = [record.default_file] if record.default_file else []
    if "reads-first" in effects:  # history -r [FILE]
        reads += files[:1] or default
    if {"writes-first", "writes-second"} & set(effects) and not writes:
        writes = default  # split, csplit, history -w
    says = rule.says.replace("{op}", files[0] if files else "").replace("{opt}", matched)
    says = says.replace("{out}", writes[0] if writes else "")
    out = _c(rule.category, _RISK[rule.risk], f"{record.name} {says}", reads=reads, writes=writes)
    out.decoder = record.decodes or any(o in record.decodes_with for o, _ in opts)
    if "runs-first" in effects:
        out.exec_files = files[:1]
    if "inner" in effects:
        out.inner = files[record.skip :]
    if "cd" in effects or "cd-unknown" in effects:
        out.cd = (files[0] if files else "") if "cd" in effects else "\x00unknown\x00"
    if "deny" in effects:
        out.hard_deny = [out.reason]
    if "reverse-shell" in effects:  # nc -e sh
        out.reverse_shell, out.hard_deny = True, [out.reason]
    out.download_stdout = "downloads" in effects
    out.destructive = "destructive" in effects
    if "network" in effects:
        out.network = True
    if "code" in effects:  # every word, options included, is shell code (eval)
        out.nested_code = [" ".join(args)]
    if "code-first" in effects and args[:1] not in ([], ["-"], [""]):  # trap CODE SIGNAL...
        out.nested_code = args[:1]
    if "code-operands" in effects:  # watch CMDLINE...
        out.nested_code = [" ".join(files)]
    if "code-value" in effects:  # flock -c CMDLINE
        out.nested_code = [v for o, v in opts if o == matched and v]
    return out


_RISK = {"low": LOW, "medium": MEDIUM, "high": HIGH}
#: The words a rule's ``when`` (besides option names) and ``effect`` may use.
#: (``is:WORD``: an argument is WORD; ``KEY=``: an operand starts with it, as ``dd of=FILE``;
#: ``^A,B``: an argument starts with A or B in any case; ``T1&T2``: both tests hold.)
TESTS = words("always no-args operands no-operands --first + = / other")
EFFECTS = words(
    """runs-first inner cd cd-unknown writes writes-first writes-second reads-first here deny
    network code code-first code-operands code-value reverse-shell downloads destructive"""
)


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


def _wrapped(record: Program, opts: Opts, rest: list[str]) -> Classified:
    writes = [v for o, v in opts if o in record.writes_with and v]
    rest = rest[record.skip :]
    if record.skip_number and rest and rest[0].isdecimal():
        rest = rest[1:]
    if not rest:
        return _c("neutral", LOW, f"{record.name} with no command", writes=writes)
    return _c("wrapper", LOW, f"{record.name} runs {rest[0]}", inner=rest, writes=writes)
