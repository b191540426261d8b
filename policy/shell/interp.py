"""Shells and interpreters: code passed with -c/-e, scripts they run, code read from stdin."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.programs import known, record
from cairn.policy.shell.programs.interpreters import PYTHON_MODULES
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["interpreter", "shell"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def shell(name: str, args: list[str]) -> Classified:
    """bash -c CODE, bash script.sh, bash (reads code from stdin)."""
    i = 0
    code: str | None = None
    reads_stdin = False
    while i < len(args):
        arg = args[i]
        if arg == "-c" or (
            arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:] and "o" not in arg[1:]
        ):
            code = args[i + 1] if i + 1 < len(args) else ""
            break
        if arg in ("--rcfile", "--init-file"):
            return _c(
                "exec",
                HIGH,
                f"{name} {arg} runs {args[i + 1] if i + 1 < len(args) else 'a file'} first",
                exec_files=args[i + 1 : i + 2],
            )
        if arg in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if arg == "-s" or (arg.startswith("-") and "s" in arg[1:] and not arg.startswith("--")):
            reads_stdin = True
            i += 1
            continue
        if arg == "--":
            i += 1
            break
        if arg.startswith(("-", "+")):
            i += 1
            continue
        break
    if code is not None:
        return _c(
            "wrapper",
            MEDIUM if not code.strip() else LOW,
            f"{name} -c runs a command line",
            nested_code=[code],
        )
    script = args[i:] if i < len(args) else []
    if script and not reads_stdin:
        return _c("exec", HIGH, f"{name} runs the script {script[0]}", exec_files=[script[0]])
    return _c("exec", HIGH, f"{name} runs shell code read from its input", stdin_code=True)


def interpreter(name: str, args: list[str]) -> Classified:
    family = "python" if re.fullmatch(r"python[0-9.]*|pypy[0-9.]*", name) else name
    found = record(family)
    flags = found.runs_with if found else frozenset(("-e", "-c"))
    inline: list[str] = []
    module: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in flags or any(
            arg.startswith(f) and len(f) == 2 and len(arg) > 2 and not arg.startswith("--") for f in flags
        ):
            inline.append(args[i + 1] if arg in flags and i + 1 < len(args) else arg[2:])
            i += 2
            continue
        if family == "python" and arg.startswith("-m"):  # -m MODULE, -mMODULE
            module = arg[2:] or (args[i + 1] if i + 1 < len(args) else "")
            break
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        break
    if inline:
        return _c("exec", HIGH, f"{name} runs inline code", inline_code=inline)
    if module is not None:
        return _module(name, module, args)
    rest = args[i:]
    if rest and rest[0] != "-":
        return _c("exec", HIGH, f"{name} runs the script {rest[0]}", exec_files=[rest[0]])
    return _c("exec", HIGH, f"{name} runs code read from its input", stdin_code=True)


def _module(name: str, module: str, args: list[str]) -> Classified:
    """``python -m MODULE``: what the module does, from ``programs/interpreters.py``."""
    if module == "pytest":
        from cairn.policy.shell.judge import judge

        return judge(known("pytest"), args[args.index(module) + 1 :] if module in args else [])
    for modules, category, risk, says in PYTHON_MODULES:
        if module in modules:
            return _c(category, risk, f"{name} -m {module} {says}", network=category == "network")
    return _c("exec", HIGH, f"{name} -m {module} runs a module")
