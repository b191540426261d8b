"""Reading a sed script well enough to know whether it writes files or runs commands.

GNU sed's ``e`` command and the ``e`` flag of ``s///`` run shell commands; ``w``/``W`` and the
``w`` flag write files; ``r``/``R`` read them.  The scanner walks addresses and commands; if it
cannot follow the script it says so and the caller treats the script as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SedScript", "scan_sed"]


@dataclass
class SedScript:
    executes: bool = False
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    unknown: bool = False


def _skip_regex(text: str, i: int, delim: str) -> int:
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == delim:
            return i + 1
        if text[i] == "\n":
            return -1
        i += 1
    return -1


def _read_filename(text: str, i: int) -> tuple[str, int]:
    end = text.find("\n", i)
    end = len(text) if end == -1 else end
    return text[i:end].strip(), end


def scan_sed(script: str) -> SedScript:
    out, text, i = SedScript(), script, 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\n;{}!":
            i += 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        i = _skip_addresses(text, i)
        while 0 <= i < n and text[i] in "! \t":
            i += 1
        if i >= n:
            break
        if i != -1:
            i = _command(text, i + 1, text[i], out)
        if i == -1:
            out.unknown = True
            return out
    return out


def _skip_addresses(text: str, i: int) -> int:
    """Past the addresses (number, $, /re/, \\cREc, first~step, addr1,addr2, +N, ~N); -1 when
    a regex does not end."""
    n = len(text)
    while i < n and (text[i].isdigit() or text[i] in "$,~+/\\ \t"):
        if text[i] == "/":
            i = _skip_regex(text, i + 1, "/")
            if i == -1:
                return -1
            while i < n and text[i] in "IM":
                i += 1
            continue
        if text[i] == "\\" and i + 1 < n:
            i = _skip_regex(text, i + 2, text[i + 1])
            if i == -1:
                return -1
            continue
        i += 1
    return i


def _command(text: str, i: int, cmd: str, out: SedScript) -> int:
    """Record what one command does; the index after it, or -1 when it cannot be read."""
    n = len(text)
    if cmd in "{};\n":
        return i
    if cmd in "sy":
        return _substitute(text, i, cmd, out)
    if cmd in "ewWrR":
        name, i = _read_filename(text, i)
        if cmd == "e":
            out.executes = True
        else:
            (out.writes if cmd in "wW" else out.reads).append(name)
        return i
    if cmd in "aic":
        return _text_argument(text, i)
    if cmd in ":btT":
        stops = [p for p in (text.find("\n", i), text.find(";", i)) if p != -1]
        return min(stops) if stops else n
    if cmd in "qQlL":
        while i < n and (text[i].isdigit() or text[i] in " \t"):
            i += 1
        return i
    if cmd in "=dDgGhHnNpPxzF":
        return i
    if cmd == "v":
        while i < n and text[i] not in ";\n}":
            i += 1
        return i
    return -1


def _substitute(text: str, i: int, cmd: str, out: SedScript) -> int:
    """``s/re/repl/flags`` or ``y/a/b/``: the ``e`` and ``w FILE`` flags run or write."""
    n = len(text)
    if i >= n or text[i] in "\\\n":
        return -1
    delim = text[i]
    i = _skip_regex(text, i + 1, delim)
    if i != -1:
        i = _skip_regex(text, i, delim)
    if i == -1 or cmd == "y":
        return i
    while i < n and text[i] not in ";\n}#":
        flag = text[i]
        if flag == "e":
            out.executes = True
        elif flag == "w":
            name, i = _read_filename(text, i + 1)
            out.writes.append(name)
            continue
        elif not (flag.isdigit() or flag in "gpiImM \t"):
            return -1
        i += 1
    return i


def _text_argument(text: str, i: int) -> int:
    """Past the text of ``a``/``i``/``c`` (it continues over backslash-newlines)."""
    n = len(text)
    if text.startswith("\\\n", i):
        i += 2
    end = i
    while end < n:
        nl = text.find("\n", end)
        if nl == -1:
            return n
        if text[nl - 1] == "\\":
            end = nl + 1
            continue
        return nl
    return end
