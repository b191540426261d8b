"""Argument-aware handlers for commands that are read-only unless an argument says otherwise.

``find -exec/-delete/-fprint``, ``sed -i``/``w``/``e``, ``awk`` ``system()``/redirection,
``rg --pre``, ``sort -o``/``--compress-program``, ``uniq``/``xxd`` output operands, ``tee``,
``less +!cmd``, ``man -P`` ... make otherwise harmless commands write or execute.
"""

from __future__ import annotations

import re

from policy.levels import RiskLevel
from policy.shell.options import looks_like_path, split_args
from policy.shell.result import Classified
from policy.shell.sedscript import scan_sed

__all__ = ["HANDLERS"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _c(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    return Classified(category=category, risk=risk, reason=reason, **kw)  # type: ignore[arg-type]


def _path_values(opts: list[tuple[str, str | None]], names: tuple[str, ...] = ()) -> list[str]:
    return [v for o, v in opts if v and (o in names or looks_like_path(v))]


def grep(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args,
        "efmABCdD",
        (
            "--regexp",
            "--file",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--exclude-from",
            "--label",
            "--devices",
            "--directories",
            "--binary-files",
            "--group-separator",
        ),
    )
    names = {o for o, _ in opts}
    has_pattern = bool(names & {"-e", "-f", "--regexp", "--file"})
    files = operands if has_pattern else operands[1:]
    reads = files + [v for o, v in opts if v and o in ("-f", "--file", "--exclude-from")]
    if not files and names & {"-r", "-R", "--recursive", "--dereference-recursive"}:
        reads.append(".")
    return _c("search", LOW, f"{name} only searches", reads=reads)


def rg(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args,
        "efgtTmABCjMErd",
        (
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--type-add",
            "--type-clear",
            "--max-count",
            "--after-context",
            "--before-context",
            "--context",
            "--threads",
            "--max-columns",
            "--encoding",
            "--replace",
            "--max-depth",
            "--max-filesize",
            "--sort",
            "--sortr",
            "--color",
            "--colors",
            "--context-separator",
            "--field-context-separator",
            "--field-match-separator",
            "--path-separator",
            "--pre",
            "--pre-glob",
            "--ignore-file",
            "--dfa-size-limit",
            "--regex-size-limit",
            "--engine",
            "--hostname-bin",
            "--hyperlink-format",
            "--generate",
            "--max-columns-preview",
        ),
    )
    names = {o for o, _ in opts}
    for danger in ("--pre", "--hostname-bin"):
        if danger in names:
            value = next(v for o, v in opts if o == danger)
            return _c("exec", HIGH, f"rg {danger} runs the program {value!r} on every file")
    no_pattern = bool(names & {"--files", "--type-list", "--help", "-h"})
    has_pattern = bool(names & {"-e", "-f", "--regexp", "--file"})
    files = operands if (has_pattern or no_pattern) else operands[1:]
    reads = (files or ["."]) + [v for o, v in opts if v and o in ("-f", "--file", "--ignore-file")]
    return _c("search", LOW, "rg only searches", reads=reads, lists_paths="--files" in names)


def ag(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args, "ABCGgmp", ("--pager", "--depth", "--ignore", "--path-to-ignore", "--file-search-regex")
    )
    if any(o == "--pager" for o, _ in opts):
        return _c("exec", HIGH, f"{name} --pager runs another program")
    return _c("search", LOW, f"{name} only searches", reads=operands[1:] or ["."])


def find(name: str, args: list[str]) -> Classified:
    starts: list[str] = []
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"):
        i += 2 if args[i] == "-D" else 1
    while i < len(args) and not args[i].startswith(("-", "(", "!", ")")) and args[i] not in (",",):
        starts.append(args[i])
        i += 1
    starts = starts or ["."]
    result = _c("search", LOW, "find only searches", reads=list(starts), lists_paths=True)
    result.unfiltered = not any(a in _FILTERS or a.startswith("-newer") for a in args[i:])
    value_tests = {
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-maxdepth",
        "-mindepth",
        "-links",
        "-inum",
        "-samefile",
        "-newer",
        "-anewer",
        "-cnewer",
        "-used",
        "-fstype",
        "-printf",
        "-context",
        "-lname",
        "-ilname",
        "-regextype",
        "-newerXY",
        "-files0-from",
    }
    while i < len(args):
        arg = args[i]
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            inner = args[i + 1 : end]
            if not inner:
                return _c("general", HIGH, f"find {arg} without a command")
            if result.inner is not None:
                result.nested_code.append(" ".join(_quote(a) for a in inner))
            else:
                result.inner = inner
                result.inner_placeholder = "{}"
            result.category = "wrapper"
            result.reason = f"find {arg} runs {inner[0]} on each match"
            i = end + 1
            continue
        if arg == "-delete":
            result.category, result.risk, result.destructive = "write", MEDIUM, True
            result.reason = "find -delete deletes every match"
            result.writes.extend(starts)
            filtered = any(a in _FILTERS or a.startswith("-newer") for a in args[:i])
            if not filtered:
                result.critical.extend((s, "find -delete") for s in starts)
        elif arg in ("-fprint", "-fprint0", "-fls", "-fprintf"):
            target = args[i + 1] if i + 1 < len(args) else ""
            result.category, result.risk = "write", MEDIUM
            result.reason = f"find {arg} writes the file {target}"
            result.writes.append(target)
            i += 3 if arg == "-fprintf" else 2
            continue
        elif arg in ("-samefile", "-newer", "-anewer", "-cnewer", "-files0-from"):
            if i + 1 < len(args):
                result.reads.append(args[i + 1])
            i += 2
            continue
        elif arg in value_tests or re.fullmatch(r"-newer[amcBt][amcBt]", arg):
            i += 2
            continue
        i += 1
    return result


_FILTERS = {
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-type",
    "-size",
    "-empty",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-user",
    "-group",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-used",
    "-nouser",
    "-nogroup",
}


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9_./{}=:,+@%-]+", word) else "'" + word.replace("'", "'\\''") + "'"


def fd(name: str, args: list[str]) -> Classified:
    for k, arg in enumerate(args):
        if arg in ("-x", "--exec", "-X", "--exec-batch") or arg.startswith(("--exec=", "--exec-batch=")):
            inner = [a for a in args[k + 1 :] if a != ";"]
            result = fd(name, args[:k])
            if inner:
                result.inner, result.inner_placeholder, result.category = inner, "{}", "wrapper"
                result.reason = f"{name} {arg} runs {inner[0]} on each match"
            return result
    opts, operands = split_args(
        args,
        "etdEjScoL",
        (
            "--extension",
            "--type",
            "--max-depth",
            "--min-depth",
            "--exclude",
            "--threads",
            "--size",
            "--changed-within",
            "--changed-before",
            "--owner",
            "--color",
            "--base-directory",
            "--search-path",
            "--ignore-file",
            "--max-results",
        ),
    )
    reads = operands[1:] + [
        v for o, v in opts if v and o in ("--base-directory", "--search-path", "--ignore-file")
    ]
    return _c("search", LOW, f"{name} only searches", reads=reads or ["."], lists_paths=True)


def sed(name: str, args: list[str]) -> Classified:
    scripts: list[str] = []
    files: list[str] = []
    in_place = sandbox = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            files.extend(args[i:])
            break
        if arg.startswith("--"):
            opt, eq, value = arg.partition("=")
            if opt == "--expression":
                scripts.append(value if eq else (args[i] if i < len(args) else ""))
                i += 0 if eq else 1
            elif opt == "--file":
                return _c("general", MEDIUM, "sed -f runs a script file the policy cannot read")
            elif opt == "--in-place":
                in_place = True
            elif opt == "--line-length" and not eq:
                i += 1
            elif opt == "--sandbox":
                sandbox = True
            continue
        if not arg.startswith("-") or arg == "-":
            files.append(arg)
            continue
        for k, letter in enumerate(arg[1:], start=1):
            rest = arg[k + 1 :]
            if letter in "ef":
                value = rest if rest else (args[i] if i < len(args) else "")
                i += 0 if rest else 1
                if letter == "f":
                    return _c("general", MEDIUM, "sed -f runs a script file the policy cannot read")
                scripts.append(value)
                break
            if letter == "l":
                i += 0 if rest else 1
                break
            if letter == "i":  # -i[SUFFIX]: the rest of the word is the backup suffix
                in_place = True
                break
    if not scripts:
        if not files:
            return _c("neutral", LOW, "sed with no script")
        scripts, files = [files[0]], files[1:]
    script = scan_sed("\n".join(scripts))
    if script.executes and not sandbox:
        return _c("exec", HIGH, "the sed script uses e, which runs shell commands")
    if script.unknown and not sandbox:
        return _c("general", MEDIUM, "the sed script could not be read (it might write or run commands)")
    reads = files + script.reads
    if in_place or script.writes:
        writes = (files if in_place else []) + script.writes
        what = "edits files in place" if in_place else f"writes {', '.join(script.writes)}"
        return _c(
            "write",
            MEDIUM,
            f"sed {what}",
            reads=reads,
            writes=writes,
            auto_edit=in_place and not script.writes,
        )
    return _c("read", LOW, "sed only prints", reads=reads)


_AWK_DANGER = re.compile(
    r"\bsystem\s*\(|\|\s*getline|\|&|\bgetline\b|@load|\bclose\s*\(|\bfflush\s*\(|"
    r"\b(print|printf)\b[^;{}\n]*?(>|\|)"
)


def awk(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args, "Ffvi", ("--field-separator", "--file", "--assign", "--include", "--load", "--source", "--exec")
    )
    names = {o for o, _ in opts}
    if names & {"-f", "--file", "--exec", "--include", "-i", "--load", "-l"}:
        return _c("general", MEDIUM, f"{name} runs a program file or extension the policy cannot read")
    programs = [v or "" for o, v in opts if o == "--source"]
    if not programs:
        if not operands:
            return _c("neutral", LOW, f"{name} with no program")
        programs, operands = [operands[0]], operands[1:]
    for program in programs:
        m = _AWK_DANGER.search(program)
        if m:
            return _c(
                "exec",
                HIGH,
                f"the {name} program uses {m.group().strip()!r}, which can run commands or write files",
            )
    files = [o for o in operands if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", o)]
    return _c("read", LOW, f"{name} only prints", reads=files)


def sort(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args,
        "kStTo",
        (
            "--key",
            "--buffer-size",
            "--field-separator",
            "--temporary-directory",
            "--output",
            "--compress-program",
            "--files0-from",
            "--parallel",
            "--batch-size",
            "--random-source",
            "--sort",
        ),
    )
    for o, v in opts:
        if o == "--compress-program":
            return _c("exec", HIGH, f"sort --compress-program runs {v!r}")
    outputs = [v for o, v in opts if o in ("-o", "--output") and v]
    reads = operands + [v for o, v in opts if v and o in ("--files0-from", "--random-source")]
    if outputs:
        return _c(
            "write", MEDIUM, f"sort -o writes {outputs[0]}", reads=reads, writes=outputs, auto_edit=True
        )
    return _c("read", LOW, "sort only prints", reads=reads)


def uniq(name: str, args: list[str]) -> Classified:
    _, operands = split_args(args, "fsw", ("--skip-fields", "--skip-chars", "--check-chars"))
    if len(operands) >= 2:
        return _c(
            "write",
            MEDIUM,
            f"uniq writes its output to {operands[1]}",
            reads=operands[:1],
            writes=operands[1:2],
            auto_edit=True,
        )
    return _c("read", LOW, "uniq only prints", reads=operands)


def xxd(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, "cglosnC", ("--cols",))
    decode = any(o == "-r" for o, _ in opts)
    if len(operands) >= 2:
        return _c(
            "write",
            MEDIUM,
            f"xxd writes {operands[1]}",
            reads=operands[:1],
            writes=operands[1:2],
            decoder=decode,
        )
    return _c("read", LOW, "xxd only prints", reads=operands, decoder=decode)


def base64(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, "w", ("--wrap",))
    decode = any(o in ("-d", "-D", "--decode") for o, _ in opts)
    return _c("read", LOW, f"{name} only prints", reads=operands, decoder=decode)


def tr(name: str, args: list[str]) -> Classified:
    return _c("read", LOW, "tr only transforms its input", decoder=True)


def tee(name: str, args: list[str]) -> Classified:
    _, operands = split_args(args, "", ("--output-error",))
    if not operands:
        return _c("neutral", LOW, "tee with no file")
    return _c("write", MEDIUM, f"tee writes {', '.join(operands)}", writes=operands, auto_edit=True)


def less(name: str, args: list[str]) -> Classified:
    for arg in args:
        if arg.startswith("+"):
            return _c(
                "exec", HIGH, f"{name} {arg} runs pager commands at start (they can run shell commands)"
            )
    opts, operands = split_args(
        args,
        "bhjkopPtTxyzO#",
        ("--log-file", "--LOG-FILE", "--tag", "--pattern", "--prompt", "--lesskey-file", "--tabs", "--shift"),
    )
    writes = [v for o, v in opts if o in ("-o", "-O", "--log-file", "--LOG-FILE") and v]
    if writes:
        return _c("write", MEDIUM, f"{name} -o writes a log file", reads=operands, writes=writes)
    return _c("read", LOW, f"{name} only reads", reads=operands)


def man(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, "PHMCRLmSsEe", ("--pager", "--html", "--manpath", "--config-file"))
    if any(o in ("-P", "--pager", "-H", "--html") for o, _ in opts):
        return _c("exec", HIGH, "man -P/-H runs another program")
    return _c("read", LOW, "man only shows manual pages", reads=[o for o in operands if "/" in o])


def jq(name: str, args: list[str]) -> Classified:
    reads: list[str] = []
    positional: list[str] = []
    has_filter_file = False
    rest_are_args = False
    i = 0
    while i < len(args):
        arg = args[i]
        if rest_are_args:
            i += 1
            continue
        if arg in ("--arg", "--argjson"):
            i += 3
            continue
        if arg in ("--slurpfile", "--rawfile"):
            if i + 2 < len(args):
                reads.append(args[i + 2])
            i += 3
            continue
        if arg in ("-f", "--from-file"):
            if i + 1 < len(args):
                reads.append(args[i + 1])
            has_filter_file = True
            i += 2
            continue
        if arg in ("-L", "--indent", "--library-path"):
            i += 2
            continue
        if arg in ("--args", "--jsonargs"):
            rest_are_args = True
            if positional or has_filter_file:
                break
            i += 1
            continue
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        positional.append(arg)
        i += 1
    files = positional if has_filter_file else positional[1:]
    category = "read"
    if name == "yq":
        if any(
            a in ("-i", "--inplace") or (a.startswith("-") and not a.startswith("--") and "i" in a[1:])
            for a in args
        ):
            return _c(
                "write", MEDIUM, "yq -i edits files in place", writes=files, reads=files, auto_edit=True
            )
        if positional and re.search(r"\bload(_str|_xml|_props|_base64)?\s*\(", positional[0]):
            return _c("read", MEDIUM, "the yq expression loads other files")
    return _c(category, LOW, f"{name} only prints", reads=files + reads)


def tree(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(
        args, "LPIoHT", ("--filelimit", "--charset", "--timefmt", "--sort", "--fromfile")
    )
    writes = [v for o, v in opts if o == "-o" and v]
    if writes:
        return _c("write", MEDIUM, f"tree -o writes {writes[0]}", reads=operands or ["."], writes=writes)
    return _c("list", LOW, "tree only lists", reads=operands or ["."])


def iconv(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, "fto", ("--from-code", "--to-code", "--output"))
    writes = [v for o, v in opts if o in ("-o", "--output") and v]
    if writes:
        return _c(
            "write", MEDIUM, f"iconv -o writes {writes[0]}", reads=operands, writes=writes, auto_edit=True
        )
    return _c("read", LOW, "iconv only prints", reads=operands)


def locate(name: str, args: list[str]) -> Classified:
    return _c("search", MEDIUM, f"{name} lists files anywhere on the machine")


def echo(name: str, args: list[str]) -> Classified:
    words = list(args)
    interpret = False
    while words and re.fullmatch(r"-[neE]+", words[0]):
        interpret = interpret or "e" in words[0]
        words.pop(0)
    text = " ".join(words)
    decoded = interpret and "\\" in text
    if decoded:
        text = _printf_escapes(text)
    result = _c("neutral", LOW, "echo only prints", literal=text)
    result.decoder = decoded
    return result


def printf(name: str, args: list[str]) -> Classified:
    words = list(args)
    if words[:1] == ["-v"]:
        return _c("neutral", LOW, "printf -v sets a variable")
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        return _c("neutral", LOW, "printf only prints", literal="")
    fmt, rest = words[0], words[1:]
    escapes = bool(re.search(r"\\(x[0-9A-Fa-f]|[0-7]{1,3}|u[0-9A-Fa-f])", fmt)) or "%b" in fmt
    try:
        text = _printf_escapes(fmt)
        if "%" in text:
            text = _format(text, rest)
    except (TypeError, ValueError):
        text = None
    result = _c("neutral", LOW, "printf only prints", literal=text)
    result.decoder = escapes
    return result


def _printf_escapes(text: str) -> str:
    from policy.shell.rewrite import decode_ansi_c

    return decode_ansi_c(re.sub(r"\\0([0-7]{1,3})", r"\\\1", text))[0]


def _format(fmt: str, args: list[str]) -> str:
    out: list[str] = []
    items = list(args)
    for piece in re.split(r"(%[-+ #0]*\d*(?:\.\d+)?[sbdiouxXcfgeE%])", fmt):
        if piece.startswith("%") and len(piece) > 1:
            if piece == "%%":
                out.append("%")
                continue
            value = items.pop(0) if items else ""
            out.append(_printf_escapes(value) if piece.endswith("b") else value)
        else:
            out.append(piece)
    return "".join(out)


def date(name: str, args: list[str]) -> Classified:
    if any(a in ("-s", "--set") or a.startswith("--set=") for a in args):
        return _c("general", HIGH, "date -s sets the system clock")
    opts, _ = split_args(args, "dfr", ("--date", "--file", "--reference"))
    reads = [v for o, v in opts if o in ("-f", "--file", "-r", "--reference") and v]
    return _c("neutral", LOW, "date only prints", reads=reads)


def hostname(name: str, args: list[str]) -> Classified:
    if [a for a in args if not a.startswith("-")]:
        return _c("general", HIGH, "hostname NAME changes the machine's name")
    return _c("neutral", LOW, "hostname only prints")


def cd(name: str, args: list[str]) -> Classified:
    operands = [a for a in args if a not in ("-L", "-P", "-e", "-@", "--")]
    if name == "popd":
        return _c("silent", LOW, "popd changes the directory", cd="\x00unknown\x00")
    target = operands[0] if operands else ""
    return _c("silent", LOW, f"{name} changes the directory", cd=target)


def set_builtin(name: str, args: list[str]) -> Classified:
    safe = {
        "-e",
        "+e",
        "-u",
        "+u",
        "-x",
        "+x",
        "-v",
        "+v",
        "-o",
        "+o",
        "pipefail",
        "errexit",
        "nounset",
        "xtrace",
        "-eu",
        "-ex",
        "-eux",
        "-euo",
        "-exo",
        "-eo",
        "-uo",
        "-C",
        "+C",
        "noclobber",
        "-f",
        "+f",
        "noglob",
        "--",
        "-euxo",
        "-xeuo",
        "-eou",
    }
    if all(a in safe for a in args):
        return _c("silent", LOW, "set only changes shell options")
    if args and args[0] == "--":
        return _c("silent", LOW, "set -- only sets positional parameters")
    return _c("general", MEDIUM, f"set {' '.join(args)} changes how later commands run")


def shopt(name: str, args: list[str]) -> Classified:
    safe = {
        "-s",
        "-u",
        "-q",
        "-p",
        "globstar",
        "nullglob",
        "dotglob",
        "extglob",
        "failglob",
        "nocaseglob",
        "nocasematch",
        "lastpipe",
        "pipefail",
        "inherit_errexit",
    }
    if all(a in safe for a in args):
        return _c("silent", LOW, "shopt only changes globbing options")
    return _c("general", MEDIUM, f"shopt {' '.join(args)} changes how later commands run")


def alias(name: str, args: list[str]) -> Classified:
    if any("=" in a for a in args):
        return _c("general", MEDIUM, "alias redefines what a command name runs later in this shell")
    return _c("neutral", LOW, "alias lists aliases")


def source(name: str, args: list[str]) -> Classified:
    if not args:
        return _c("neutral", LOW, f"{name} with no file")
    return _c("exec", HIGH, f"{name} runs the shell file {args[0]} in this shell", exec_files=[args[0]])


def enable(name: str, args: list[str]) -> Classified:
    if "-f" in args:
        return _c("exec", HIGH, "enable -f loads a shared library into the shell")
    return _c("general", MEDIUM, "enable turns shell builtins on or off")


def hash_builtin(name: str, args: list[str]) -> Classified:
    if "-p" in args:
        return _c("general", MEDIUM, "hash -p redirects a command name to another program")
    return _c("neutral", LOW, "hash lists remembered commands")


def kill(name: str, args: list[str]) -> Classified:
    rest = list(args)
    if name == "kill" and rest:
        if rest[0] in ("-s", "-n") and len(rest) > 1:
            rest = rest[2:]
        elif re.fullmatch(r"-(\d+|[A-Z]+|SIG[A-Z]+)", rest[0]) and len(rest) > 1:
            rest = rest[1:]
        if rest[:1] == ["--"]:
            rest = rest[1:]
        if "-1" in rest:
            return _c(
                "general",
                HIGH,
                "kill -1 signals every process",
                hard_deny=["kill -1 signals every process you own"],
            )
    return _c("general", MEDIUM, f"{name} stops processes")


def declare(name: str, args: list[str]) -> Classified:
    """export/declare/local/readonly/typeset: assignments that may change what later commands run."""
    from policy.shell.envvars import dangerous_env

    flags = [a for a in args if a.startswith(("-", "+"))]
    assigned = [a for a in args if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a)]
    result = _c("silent", LOW, f"{name} sets shell variables", assignments=assigned)
    if any("f" in f[1:] for f in flags):
        result.risk, result.category = MEDIUM, "general"
        result.reason = f"{name} -f exports shell functions to child processes"
    for item in assigned:
        var, _, value = item.partition("=")
        if dangerous_env(var, value):
            result.risk, result.category = HIGH, "general"
            result.reason = f"{name} {var}=... changes what later commands run"
    return result


HANDLERS = {
    "grep": grep,
    "egrep": grep,
    "fgrep": grep,
    "zgrep": grep,
    "zegrep": grep,
    "zfgrep": grep,
    "rgrep": grep,
    "rg": rg,
    "ag": ag,
    "ack": ag,
    "find": find,
    "fd": fd,
    "fdfind": fd,
    "sed": sed,
    "gsed": sed,
    "awk": awk,
    "gawk": awk,
    "mawk": awk,
    "nawk": awk,
    "sort": sort,
    "uniq": uniq,
    "xxd": xxd,
    "base64": base64,
    "tr": tr,
    "tee": tee,
    "less": less,
    "man": man,
    "jq": jq,
    "yq": jq,
    "gojq": jq,
    "tree": tree,
    "iconv": iconv,
    "locate": locate,
    "mlocate": locate,
    "plocate": locate,
    "echo": echo,
    "printf": printf,
    "date": date,
    "hostname": hostname,
    "cd": cd,
    "pushd": cd,
    "popd": cd,
    "set": set_builtin,
    "shopt": shopt,
    "alias": alias,
    "unalias": alias,
    "source": source,
    ".": source,
    "enable": enable,
    "hash": hash_builtin,
    "kill": kill,
    "pkill": kill,
    "killall": kill,
    "export": declare,
    "declare": declare,
    "local": declare,
    "readonly": declare,
    "typeset": declare,
}
