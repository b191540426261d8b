"""echo and printf: their literal output is kept for ``echo … | sh`` analysis (what they print
is code the shell after them runs)."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["echo", "printf"]

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
    return _c("neutral", LOW, "echo only prints", literal=text, decoder=decoded)


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
    return _c("neutral", LOW, "printf only prints", literal=text, decoder=escapes)


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
