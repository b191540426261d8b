"""find: read-only unless -exec, -delete or -fprint make it run or write (fd is judged from its record)."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.treescan import names_secret
from cairn.policy.vocab import words

__all__ = ["find"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


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
            if not any(a in _FILTERS or a.startswith("-newer") for a in args[:i]):  # every file
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
        elif arg in _VALUE_TESTS or re.fullmatch(r"-newer[amcBt][amcBt]", arg):
            i += 2
            continue
        i += 1
    secret = _secret_pattern(args)
    if secret:
        # the paths it finds (and hands to -exec or down a pipe) can be credentials
        result.lists_paths = False
        if result.inner is not None:
            result.category, result.risk = "general", MEDIUM
            result.reason = f"find runs {result.inner[0]} on files that can be {secret}"
    return result


#: Tests that take a value (the next word is not an expression).
_VALUE_TESTS = words(
    """-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -perm -user -group
    -uid -gid -size -mtime -mmin -atime -amin -ctime -cmin -maxdepth -mindepth -links -inum
    -samefile -newer -anewer -cnewer -used -fstype -printf -context -lname -ilname -regextype
    -newerXY -files0-from"""
)


def _secret_pattern(args: list[str]) -> str | None:
    """A credential name one of find's name tests can match (find's ``*`` matches dot files)."""
    for k, arg in enumerate(args[:-1]):
        if arg in _NAME_TESTS:
            pattern = args[k + 1].lower() if arg[1] == "i" else args[k + 1]
            found = names_secret(pattern, dotfiles=True)
            if found:
                return found
    return None


_NAME_TESTS = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"}
_FILTERS = _NAME_TESTS | words(
    """-regex -iregex -type -size -empty -mtime -mmin -atime -amin -ctime -cmin -user -group -perm
    -links -inum -samefile -lname -ilname -used -nouser -nogroup"""
)


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9_./{}=:,+@%-]+", word) else "'" + word.replace("'", "'\\''") + "'"
