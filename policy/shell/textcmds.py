"""Handlers for text tools that are read-only unless an argument says otherwise.

``sed -i``/``w``/``e``, ``awk`` ``system()``/redirection, ``less +!cmd``, ``man -P``,
``jq``/``yq`` programs; sort, uniq, xxd, base64, tr, tree and iconv are judged from their records."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.programs import known
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["jq"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def jq(name: str, args: list[str]) -> Classified:
    found = known(name)
    short, long = value_options(name)
    pairs = frozenset("--" + n for n in found.long_pairs)
    cluster = re.compile(r"-[^-]")  # -r, -rf FILE: a valued letter ends its cluster
    has_filter_file = any(a == "--from-file" or (cluster.match(a) and "f" in a) for a in args)
    reads: list[str] = []
    positional: list[str] = []
    values = False  # after --args: the words after the program are values, not files
    i = 0
    while i < len(args):
        arg = args[i]
        takes = 2 if arg in pairs else 1 if arg in long or (cluster.match(arg) and arg[-1] in short) else 0
        if (
            takes
            and (arg in found.reads_with or (cluster.match(arg) and arg[-1] == "f"))
            and i + takes < len(args)
        ):
            reads.append(args[i + takes])  # --rawfile NAME FILE, -f FILE
        values = values or arg in ("--args", "--jsonargs")
        if (not arg.startswith("-") or arg == "-") and not (values and (positional or has_filter_file)):
            positional.append(arg)
        i += 1 + takes
    files = positional if has_filter_file else positional[1:]
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
    return _c("read", LOW, f"{name} only prints", reads=files + reads)


_JQ_ENV = re.compile(r"\$ENV\b|\$__prog_env\b|(?<![.\w$])(str)?env\b")
_JQ_MODULES = re.compile(r"\b(import|include|modulemeta|get_search_list)\b")
