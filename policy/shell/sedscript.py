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
    while i < len(text) and text[i] in " \t":
        i += 1
    end = text.find("\n", i)
    end = len(text) if end == -1 else end
    return text[i:end].strip(), end


def scan_sed(script: str) -> SedScript:
    out = SedScript()
    text = script
    i = 0
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
        # addresses: number, $, /re/, \cREc, first~step, addr1,addr2, +N, ~N
        while i < n and (text[i].isdigit() or text[i] in "$,~+/\\ \t"):
            if text[i] == "/":
                i = _skip_regex(text, i + 1, "/")
                if i == -1:
                    out.unknown = True
                    return out
                while i < n and text[i] in "IM":
                    i += 1
                continue
            if text[i] == "\\" and i + 1 < n:
                i = _skip_regex(text, i + 2, text[i + 1])
                if i == -1:
                    out.unknown = True
                    return out
                continue
            i += 1
        if i >= n:
            break
        while i < n and text[i] in "! \t":
            i += 1
        if i >= n:
            break
        cmd = text[i]
        i += 1
        if cmd in "{};\n":
            continue
        if cmd == "s" or cmd == "y":
            if i >= n:
                out.unknown = True
                return out
            delim = text[i]
            if delim in "\\\n":
                out.unknown = True
                return out
            i = _skip_regex(text, i + 1, delim)
            if i != -1:
                i = _skip_regex(text, i, delim)
            if i == -1:
                out.unknown = True
                return out
            if cmd == "s":
                while i < n and text[i] not in ";\n}#":
                    flag = text[i]
                    if flag == "e":
                        out.executes = True
                    elif flag == "w":
                        name, i = _read_filename(text, i + 1)
                        out.writes.append(name)
                        continue
                    elif not (flag.isdigit() or flag in "gpiImM \t"):
                        out.unknown = True
                        return out
                    i += 1
            continue
        if cmd == "e":
            out.executes = True
            _name, i = _read_filename(text, i)
            continue
        if cmd in "wW":
            name, i = _read_filename(text, i)
            out.writes.append(name)
            continue
        if cmd in "rR":
            name, i = _read_filename(text, i)
            out.reads.append(name)
            continue
        if cmd in "aic":
            if text.startswith("\\\n", i):
                i += 2
            end = i
            while end < n:  # text continues over backslash-newlines
                nl = text.find("\n", end)
                if nl == -1:
                    end = n
                    break
                if text[nl - 1] == "\\":
                    end = nl + 1
                    continue
                end = nl
                break
            i = end
            continue
        if cmd in ":btT":
            end = text.find("\n", i)
            semi = text.find(";", i)
            stops = [p for p in (end, semi) if p != -1]
            i = min(stops) if stops else n
            continue
        if cmd in "qQlL":
            while i < n and (text[i].isdigit() or text[i] in " \t"):
                i += 1
            continue
        if cmd in "=dDgGhHnNpPxzF":
            continue
        if cmd == "v":
            while i < n and text[i] not in ";\n}":
                i += 1
            continue
        out.unknown = True
        return out
    return out
