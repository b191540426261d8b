"""The command table: what one simple command does, judged from its name and arguments.

``classify(argv)`` returns a :class:`Classified` with a category, a risk and the words that
name paths it reads or writes; special handlers for wrappers, shells, git, find, sed and
friends live in sibling modules.  Unknown commands are ``general`` / HIGH.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import re
from collections.abc import Callable

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.cmdtables import (
    INTERPRETERS,
    LISTERS_NO_PATHS,
    NEUTRAL,
    SHELLS,
    SYSTEM_BIN,
    VERSION_SAFE,
)
from cairn.policy.shell.judge import judge, judged
from cairn.policy.shell.programs import record
from cairn.policy.shell.result import READ_ONLY_CATEGORIES, Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import unsafe_option

__all__ = ["classify", "command_name"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH
Handler = Callable[[str, list[str]], Classified]
#: Programs whose ``-v`` alone prints the version (for python, ``-v`` is verbose imports instead).
_SHORT_V_IS_VERSION = frozenset({"node", "nodejs", "npm", "npx", "yarn", "pnpm", "bun"})


def command_name(word: str) -> tuple[str, bool]:
    """The command's name for the table, and whether it was spelled as a path outside system dirs."""
    if "/" not in word:
        return word, False
    for prefix in SYSTEM_BIN:
        if word.startswith(prefix) and "/" not in word[len(prefix) :]:
            return word[len(prefix) :], False
    return os.path.basename(word), True


def classify(argv: list[str]) -> Classified:
    """Classify one simple command (already expanded and split).

    A command judged read-only (LOW) stays LOW only when every option it is given is on its
    program's list of known-safe options (:mod:`cairn.policy.shell.safeflags`).
    """
    result = _classify(argv)
    if result.risk != LOW or result.category not in READ_ONLY_CATEGORIES or not argv:
        return result
    name, _ = command_name(argv[0])
    if name in VERSION_SAFE and argv[1:] in (["--version"], ["-V"], ["-v"]):
        return result
    bad = unsafe_option(name, argv[1:])
    if bad is None:
        return result
    # What its output is (decoded data, network data) stays: ``openssl enc -d -in F | sh`` is
    # refused as ``base64 -d F | sh`` is, whatever the options (one rule for every decoder).
    why = f"{name} {bad} is not on the list of {name} options known to be read-only"
    return dataclasses.replace(result, category="general", risk=MEDIUM, reason=why, lists_paths=False)


@functools.cache
def _handler(spec: str) -> Handler:
    """The function a record names (``"sedawk.sed"``): programs whose arguments embed code."""
    module, function = spec.rsplit(".", 1)
    handler: Handler = getattr(importlib.import_module(f"cairn.policy.shell.{module}"), function)
    return handler


def _classify(argv: list[str]) -> Classified:
    if not argv:
        return _c("neutral", LOW, "no command")
    word = argv[0]
    name, by_path = command_name(word)
    args = argv[1:]
    if by_path:
        return _c("general", HIGH, f"runs the program {word} by path", exec_files=[word])
    if name in VERSION_SAFE and (
        args == ["--version"]
        or (args == ["-V"] and name in SHELLS | INTERPRETERS)
        or (args == ["-v"] and name in _SHORT_V_IS_VERSION)
    ):
        return _c("neutral", LOW, f"{name} {args[0]} only prints a version")
    found = record("mkfs" if name.startswith("mkfs") else name)  # mkfs.ext4 is mkfs
    if found is not None and found.handler:
        return _handler(found.handler)(name, args)
    if name in NEUTRAL:
        return _c("neutral", LOW, f"{name} changes nothing")
    if judged(found):
        return judge(found, args)  # type: ignore[arg-type]
    if name in LISTERS_NO_PATHS:
        return _c("list", LOW, f"{name} only shows system state")
    if re.fullmatch(r"python[0-9.]*|pypy[0-9.]*", name):  # python3.12 … (python3 has a record)
        from cairn.policy.shell.interp import interpreter

        return interpreter(name, args)
    return _c("general", HIGH, f"{name} is not a known read-only command")
