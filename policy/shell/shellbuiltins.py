"""Handlers for shell builtins and small utilities: echo/printf (their literal output is kept
for ``echo … | sh`` analysis), cd, set/shopt, export/declare, source, kill, date, hostname."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["HANDLERS"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


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
    from cairn.policy.shell.bash.ansi import decode_ansi_c

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
    opts, _ = split_args(args, *value_options(name))
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


_PRINTS_ENV = "{name} prints every variable of the shell (values the secret filter may miss)"


def compgen(name: str, args: list[str]) -> Classified:
    """compgen -C/-F run a command or function; -W expands its word list ($(…) included)."""
    for arg in args:
        if arg.startswith("-") and set(arg[1:]) & set("CFW"):
            return _c("exec", HIGH, f"{name} {arg} evaluates a string as shell code")
    return _c("neutral", LOW, f"{name} only lists completions")


def complete(name: str, args: list[str]) -> Classified:
    if all(a in ("-p", "--") for a in args):
        return _c("neutral", LOW, f"{name} only lists completion settings")
    return _c("exec", HIGH, f"{name} defines code that completion runs later (-C/-F/-W evaluate strings)")


def mapfile(name: str, args: list[str]) -> Classified:
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and "C" in arg[1:]:
            return _c("exec", HIGH, f"{name} -C runs a callback as shell code for every line read")
    return _c("neutral", LOW, f"{name} reads lines into an array")


def printenv(name: str, args: list[str]) -> Classified:
    if not [a for a in args if not a.startswith("-")]:
        return _c("general", MEDIUM, _PRINTS_ENV.format(name=name))
    return _c("neutral", LOW, f"{name} prints the named variables")


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
    if not args:
        return _c("general", MEDIUM, _PRINTS_ENV.format(name="set"))
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
    from cairn.policy.shell.envvars import dangerous_env

    flags = [a for a in args if a.startswith(("-", "+"))]
    assigned = [a for a in args if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a)]
    if len(flags) == len(args) and not any("f" in f[1:] or "F" in f[1:] for f in flags):
        return _c("general", MEDIUM, _PRINTS_ENV.format(name=name))
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
    "compgen": compgen,
    "complete": complete,
    "mapfile": mapfile,
    "readarray": mapfile,
    "printenv": printenv,
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
