"""Handlers for text tools that are read-only unless an argument says otherwise.

``sed -i``/``w``/``e``, ``awk`` ``system()``/redirection, ``less +!cmd``, ``man -P``,
``jq``/``yq`` programs; sort, uniq, xxd, base64, tr, tree and iconv are judged from their records."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c

__all__ = ["jq"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


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
    program = positional[0] if positional and not has_filter_file else ""
    env = _JQ_ENV.search(program)
    if env:
        return _c(
            "general",
            MEDIUM,
            f"the {name} program reads the environment ({env.group()}), which holds API keys",
            reads=files + reads,
        )
    if has_filter_file or _JQ_MODULES.search(program):
        why = "is read from a file" if has_filter_file else "imports modules"
        return _c(
            "read",
            MEDIUM,
            f"the {name} program {why} (modules are read from anywhere on its search path)",
            reads=files + reads,
        )
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


_JQ_ENV = re.compile(r"\$ENV\b|\$__prog_env\b|(?<![.\w$])(str)?env\b")
_JQ_MODULES = re.compile(r"\b(import|include|modulemeta|get_search_list)\b")
