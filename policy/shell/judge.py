"""The generic judge: what a program without a handler does, read from its record alone.

A record states which options take a value, which option values and operands are files it
reads or writes, which options run a program, and whether its output is decoded data
(:class:`cairn.policy.shell.programs.Program`), and which arguments make it do more (its
rules: :class:`cairn.policy.shell.programs.record.Rule`); :func:`judge` turns that into a
:class:`Classified`.  Programs whose arguments embed code (sed, awk, find, git, jq ...) keep a
handler instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
#: ``host:path`` or ``rsync://``: an operand of a remote copy that names another machine.
_REMOTE = re.compile(r"^[^/]*:|^rsync://")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
Opts = list[tuple[str, str | None]]


@dataclass
class _Args:
    """One command's arguments as its record splits them."""

    args: list[str]
    opts: Opts
    operands: list[str]  # every operand, as given
    paths: list[str]  # the operands that name files (a leading pattern or mode dropped)
    remote: list[str]  # host:path operands (records with ``remote``)
    command: list[str]  # the command it runs on each match (fd -x CMD {})
    assigned: list[str]  # NAME=VALUE operands before the command (records with assigns_first)

    def values(self, names: frozenset[str] | set[str]) -> list[str]:
        return [v for o, v in self.opts if o in names and v]


def judged(record: Program | None) -> bool:
    """Whether :func:`judge` decides for this record (it has no handler and says what it reads)."""
    return record is not None and not record.handler and bool(record.kind or record.operands or record.rules)


def judge(record: Program, args: list[str]) -> Classified:
    """``record.name args`` as its record states it."""
    a = _split(record, args)
    for opt, value in a.opts:
        if opt in record.runs_with:
            return _c("exec", HIGH, f"{record.name} {opt} runs the program {value!r}")
    for rule in record.rules:
        matched = _holds(rule.when, record, a)
        if matched is not None:
            return _finish(record, a, _ruled(record, rule, matched, a), rule.effect.split(), matched)
    if record.operands == "command":
        return _wrapped(record, a.opts, a.operands)
    return _finish(record, a, _default(record, a), [], "")


def _split(record: Program, args: list[str]) -> _Args:
    if record.bundled_first and args and re.fullmatch(r"[A-Za-z]+", args[0]):
        args = ["-" + args[0], *args[1:]]  # old style: tar xzf archive
    cut = next((k for k, x in enumerate(args) if x.partition("=")[0] in record.command_with), len(args))
    value = args[cut].partition("=")[2] if cut < len(args) else ""
    command = [x for x in [value, *args[cut + 1 :]] if x and x != ";"]
    args = args[:cut]
    lead = next((k for k, x in enumerate(args) if x != "-"), len(args)) if record.dash_means else 0
    args = [record.dash_means] * lead + args[lead:]  # env - ls: env -i ls
    if record.single_dash:
        opts, files = _single_dash(args, {"-" + n for n in record.long_valued | record.asks_long_valued})
    else:
        names = record.long_names if record.abbreviations else None  # pytest: argparse resolves them
        wraps = record.operands == "command"
        opts, files = split_args(args, *value_options(record.name), stop_at_operand=wraps, long_names=names)
    given = {o for o, _ in opts}
    pattern = record.pattern_with is not None and not given & record.pattern_with
    paths = files[1:] if pattern else files
    remote = [f for f in paths if _REMOTE.match(f)] if record.remote else []
    assigned = files[: next((k for k, f in enumerate(files) if not _ASSIGN.match(f)), len(files))]
    assigned = assigned if record.assigns_first else []
    files, paths = files[len(assigned) :], paths[len(assigned) :]
    return _Args(args, opts, files, [p for p in paths if p not in remote], remote, command, assigned)


def _default(record: Program, a: _Args) -> Classified:
    """Without a matching rule: it reads its files and option values, or writes what its
    record says it writes."""
    name, files = record.name, a.paths if record.operands else []  # tr's operands are sets
    reads, writes = _paths(record, a, [])
    if record.writes_second and len(files) >= 2:
        return _c(
            "write", MEDIUM, f"{name} writes {files[1]}", reads=files[:1], writes=files[1:2], auto_edit=True
        )
    if record.operands == "write" and not files:
        return _c("neutral", LOW, f"{name} with no file", reads=reads)
    if record.operands in ("write", "copy"):
        says = f"{name} {record.says} {' '.join(writes)}"
        return _c("write", MEDIUM, says, reads=reads, writes=writes, auto_edit=record.edits)
    if not files and (record.here or {o for o, _ in a.opts} & record.here_with):
        reads.append(".")
    if writes:
        opt = next((o for o, _ in a.opts if o in record.writes_with), "")
        return _c(
            "write", MEDIUM, f"{name} {opt} writes {writes[0]}", reads=reads, writes=writes, auto_edit=True
        )
    lists = record.lists or bool({o for o, _ in a.opts} & record.lists_with)
    return _c(record.kind or record.operands, LOW, f"{name} {record.says}", reads=reads, lists_paths=lists)


def _paths(record: Program, a: _Args, effects: list[str]) -> tuple[list[str], list[str]]:
    """The files it reads and writes: its operands as its record and the rule's effects say,
    and its file-valued options."""
    files, kind = a.paths, record.operands
    path_valued = record.reads_with | (_PATH_VALUED if kind else frozenset())
    reads: list[str] = []
    writes: list[str] = []
    if kind == "copy":
        sources, dests = _copy(record, a)
        reads += [] if "symlink" in effects else sources
        writes += sources if "writes-sources" in effects else []
        if "symlink" in effects and not dests:  # ln -s DIR/NAME: the link is ./NAME
            dests = [s.rstrip("/").rsplit("/", 1)[-1] for s in sources]
        writes += dests
    elif kind in ("read", "list") or "reads-operands" in effects:
        reads += files
    elif kind == "write":
        writes += files
    values = files + [v for _, v in a.opts if v]  # dd of=FILE, pytest -o cache_dir=DIR
    reads += a.values(path_valued) + _keyed(record.reads_with, values)
    written = a.values(record.writes_with)
    writes += (
        written
        + [v.partition(":")[2] for v in written if v.partition(":")[2]]
        + _keyed(record.writes_with, values)
    )
    writes += [record.default_file for o, v in a.opts if o in record.writes_with and not v][:1]  # --debug
    for effect in effects:
        key, _, opts = effect.partition("=")
        if key in ("reads", "writes") and opts:
            (reads if key == "reads" else writes).extend(a.values(set(opts.split(","))))
    return reads, [w for w in writes if w != "-"]


def _copy(record: Program, a: _Args) -> tuple[list[str], list[str]]:
    """The sources and the destination of cp, mv, rsync ...: ``-t DIR``, else the last operand;
    of a remote copy the local side of a send is read, of a download written."""
    files, target = a.paths, a.values(record.target_with)
    if target:
        return files, target[:1]
    if a.remote:
        return (files, []) if a.operands[-1] in a.remote else ([], files)
    return (files[:-1], files[-1:]) if len(files) > 1 or record.remote else (files, [])


def _single_dash(args: list[str], valued: set[str]) -> tuple[Opts, list[str]]:
    """``openssl x509 -in FILE -noout``: each ``-word`` is one option; those in ``valued`` take
    the next word."""
    opts: Opts = []
    files: list[str] = []
    items = iter(args)
    for arg in items:
        if arg.startswith("-") and arg != "-":
            name, eq, value = ("-" + arg.lstrip("-")).partition("=")  # go: --flag is -flag
            opts.append((name, value if eq else next(items, None) if name in valued else None))
        else:
            files.append(arg)
    return opts, files


def _keyed(keys: frozenset[str], files: list[str]) -> list[str]:
    """The values of ``KEY=VALUE`` operands whose ``KEY=`` is in ``keys`` (``dd of=FILE``)."""
    return [f.partition("=")[2] for f in files if "=" in f and f.partition("=")[0] + "=" in keys]


def _holds(when: str, record: Program, a: _Args) -> str | None:
    """What makes a rule's test hold (an option, a word), or ``None`` when none does."""
    for test in when.split():
        found = _test(test, record, a)
        if found is not None:
            return found
    return None


def _test(test: str, record: Program, a: _Args) -> str | None:
    args, files = a.args, a.operands
    if "&" in test:  # socat, chmod: every part holds
        found = [_test(part, record, a) for part in test.split("&")]
        return None if None in found else found[-1]
    if test.startswith("!"):  # tar: ... unless --force-local is given
        return "" if _test(test[1:], record, a) is None else None
    if test.startswith("^"):  # an argument starts with one of these, any case (socat EXEC:)
        lowered = tuple(test[1:].lower().split(","))
        return next((x for x in args if x.lower().startswith(lowered)), None)
    if "~" in test:  # OPT~RE: the value of OPT matches; ~RE: an operand does
        opt, _, pattern = test.partition("~")
        values = a.values({opt}) if opt else files
        return next((v for v in values if re.search(pattern, v)), None)
    if test.startswith("-") and test != "--first":
        return test if test in {o for o, _ in a.opts} else None
    if test.startswith("sub:"):  # npm install: the first operand is one of these
        return files[0] if files[:1] and files[0] in test[4:].split(",") else None
    if test.startswith("is:"):  # kill -1
        return test[3:] if test[3:] in args else None
    if test.endswith("=") and test != "=":  # dd of=
        return test if any(f.startswith(test) for f in files) else None
    return {
        "always": "",
        "no-args": "" if not args else None,
        "operands": files[0] if files else None,
        "no-operands": "" if not files else None,
        "--first": "--" if args[:1] == ["--"] else None,
        "+": next((x for x in args if x.startswith("+")), None),
        "=": next((x for x in args if "=" in x), None),
        "/": next((f for f in files if "/" in f), None),
        "other": next((x for x in args if x not in record.accepts), None),
        "remote": a.remote[0] if a.remote else None,
        "unknown-long": next((o for o, _ in a.opts if o[:2] == "--" and o not in record.long_names), None),
        "unknown": next((o for o, _ in a.opts if o not in {x.name for x in record.options}), None),
        "remote-last": files[-1] if a.remote and files[-1] in a.remote else None,
    }.get(test)


def _ruled(record: Program, rule: Rule, matched: str, a: _Args) -> Classified:
    effects = rule.effect.split()
    files = a.paths
    reads, writes = _paths(record, a, effects)
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
    says = says.replace("{out}", writes[0] if writes else "").replace("{ops}", " ".join(files + a.remote))
    out = _c(rule.category, _RISK[rule.risk], f"{record.name} {says}", reads=reads, writes=writes)
    if "runs-first" in effects:
        out.exec_files = files[:1]
    if "inner" in effects:  # xargs with no command runs echo (its default_file)
        out.inner = files[record.skip :] or ([record.default_file] if record.default_file else [])
        out.inner_extra_operands = "stdin-args" in effects  # xargs: operands come from its input
    if "inner-rest" in effects and a.operands:  # uv run [OPTIONS] CMD...: the words after "run"
        rest = a.args[a.args.index(a.operands[0]) + 1 :]
        out.inner = rest[next((k for k, x in enumerate(rest) if not x.startswith("-")), len(rest)) :] or None
    if "cd" in effects or "cd-unknown" in effects:
        out.cd = (files[0] if files else "") if "cd" in effects else "\x00unknown\x00"
    if "deny" in effects or "reverse-shell" in effects:  # nc -e sh
        out.reverse_shell, out.hard_deny = "reverse-shell" in effects, [out.reason]
    out.download_stdout, out.auto_edit = "downloads" in effects, "edits" in effects
    if "download-files" in effects:
        out.download_files = list(writes)
    out.network = "network" in effects
    for effect in effects:  # placeholder=-I,-i: xargs -I STR, STR standing for each input item
        if effect.startswith("placeholder="):
            out.inner_placeholder = next((v or "{}" for o, v in a.opts if o in effect[12:].split(",")), None)
    if "code" in effects:  # every word, options included, is shell code (eval)
        out.nested_code = [" ".join(a.args)]
    if "code-first" in effects and a.args[:1] not in ([], ["-"], [""]):  # trap CODE SIGNAL...
        out.nested_code = a.args[:1]
    if "code-operands" in effects:  # watch CMDLINE...
        out.nested_code = [" ".join(files)]
    if "code-value" in effects:  # flock -c CMDLINE
        out.nested_code = a.values({matched})
    if "code-line" in effects:  # env -S STRING ARGS...: one command line
        out.nested_code = [" ".join([*(v or "" for o, v in a.opts if o == matched), *files])]
    return out


def _finish(record: Program, a: _Args, out: Classified, effects: list[str], matched: str) -> Classified:
    """What every verdict of a record shares: decoded output, and what it may destroy."""
    given = {o for o, _ in a.opts}
    out.decoder = record.decodes or bool(given & record.decodes_with)
    wide = sorted(given & record.critical_with)
    if wide or "critical" in effects:  # rm -r, chmod -R, rsync --delete, mv: the paths it names
        action = f"{record.name} {wide[0]}" if wide else record.name
        targets = a.paths if wide or record.operands != "copy" else out.reads  # mv: its sources
        out.critical += [(w, action) for w in a.values(record.critical_with) or targets]  # --basetemp=DIR
    elif record.destructive:  # rm /, shred ~: the roots are critical even without -r
        out.critical += [(w, record.name) for w in a.paths if w == "~" or w.rstrip("/") == ""]
    out.destructive = out.destructive or record.destructive or bool(wide) or "destructive" in effects
    if record.category == "build":  # options that write or load paths escalate past bash(pytest:*)
        paths = record.writes_with | record.reads_with
        keyed = _keyed(paths, [v for _, v in a.opts if v])
        maybe = [
            o for o in given - record.long_names if o.startswith("--") and any(p.startswith(o) for p in paths)
        ]
        out.escalates = out.escalates or bool(given & paths or keyed or maybe) or "escalates" in effects
    if a.command:  # fd -x CMD: CMD runs with {} standing for each match
        out.inner, out.inner_placeholder, out.category = a.command, "{}", "wrapper"
        out.reason = f"{record.name} runs {a.command[0]} on each match"
    if "assigns" in effects:  # export NAME=VALUE, env NAME=VALUE CMD: the walker judges NAME
        out.assignments = a.assigned + [x for x in a.operands if _ASSIGN.match(x)]
    return out


_RISK = {"low": LOW, "medium": MEDIUM, "high": HIGH}
#: The words a rule's ``when`` (besides option names) and ``effect`` may use.
#: (``is:WORD``: an argument is WORD; ``KEY=``: an operand starts with it, as ``dd of=FILE``;
#: ``^A,B``: an argument starts with A or B in any case; ``T1&T2``: both tests hold; ``!T``: T
#: does not; ``OPT~RE``: OPT's value matches RE, ``~RE``: an operand does.)
TESTS = words(
    "always no-args operands no-operands --first + = / other remote remote-last unknown-long unknown"
)
#: (``sub:A,B``: the first operand is A or B.)
#: (``reads=OPT,OPT`` / ``writes=OPT,OPT``: those options' values are files it reads / writes.)
EFFECTS = words(
    """runs-first inner cd cd-unknown writes writes-first writes-second reads-first here deny
    network code code-first code-operands code-value reverse-shell downloads destructive critical
    edits writes-sources symlink assigns inner-rest escalates stdin-args placeholder= code-line reads-operands download-files reads= writes="""
)


def _wrapped(record: Program, opts: Opts, rest: list[str]) -> Classified:
    writes = [v for o, v in opts if o in record.writes_with and v]
    rest = rest[record.skip :]
    if record.skip_number and rest and rest[0].isdecimal():
        rest = rest[1:]
    if not rest:
        return _c("neutral", LOW, f"{record.name} with no command", writes=writes)
    return _c("wrapper", LOW, f"{record.name} runs {rest[0]}", inner=rest, writes=writes)
