"""Handlers for shell builtins and small utilities: echo/printf (their literal output is kept
for ``echo … | sh`` analysis), cd, set/shopt, export/declare, source, kill, date, hostname."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["declare", "echo", "printf"]

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


_PRINTS_ENV = "{name} prints every variable of the shell (values the secret filter may miss)"


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
