"""Code hidden in bash arithmetic.

Bash expands an array subscript - command substitution included - whenever it evaluates one:
in ``$((…))``, ``((…))``, ``let``, ``[[ x -eq y ]]``, ``declare -i`` assignments, and in the
variable names given to ``read``, ``printf -v``, ``unset``, ``test -v``, ``mapfile``...  The
text is often single-quoted (so no ``$(`` is visible to the parser) or arrives at run time in a
variable's value, and arithmetic evaluates a variable's value as an expression again.  Two
checks, both failing closed (the caller records them with ``add_fail``):

* :func:`subscript_code`: a builtin argument holding a subscript with ``$(…)`` or backticks
  (``let 'a[$(id)]'``, ``printf -v 'a[$(id)]' x``, ``read 'a[$(id)]'``);
* :func:`input_in_arithmetic`: a variable filled from input by ``read``/``mapfile``/``getopts``
  and then used in an arithmetic context: a line such as ``a[$(id)]`` in the file would run.

Known gap: values from ``x=$(cat f)`` or ``for x in $(cat f)`` are not tracked (their output
is usually numbers, e.g. ``$(seq 10)``, and asking for every such loop would over-block).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cairn.policy.vocab import words

__all__ = ["arith_texts", "dynamic_name", "input_in_arithmetic", "input_names", "subscript_code"]

_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`)")
_CODE = re.compile(r"\$\(|`")
_BUILTINS = words(
    """let read unset printf test [ declare typeset local export readonly mapfile readarray getopts
    wait"""
)
_NAME = re.compile(r"(?<![0-9A-Za-z_#@])[A-Za-z_][A-Za-z0-9_]*")
_VALID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Options of ``read`` taking a value (``-a NAME`` too: the array it fills); mapfile's are in
#: its record (``programs/shell_words.py``).
_READ_VALUE_OPTS = "dinNptua"


def subscript_code(name: str, args: list[str]) -> str | None:
    """Why a builtin would run a command hidden in a subscript of its arguments, or ``None``."""
    if name not in _BUILTINS:
        return None
    for arg in args:
        if _SUBSCRIPT_CODE.search(arg) or (name == "let" and _CODE.search(arg)):
            shown = arg if len(arg) <= 60 else arg[:59] + "…"
            return (
                f"{name} evaluates {shown!r} as arithmetic or an array subscript, "
                "which runs the command inside it"
            )
    return None


def _options(args: list[str], value_opts: str) -> tuple[list[str], list[str]]:
    """Split ``-abc VALUE`` style options from operands; returns (array targets, operands)."""
    arrays: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            operands.extend(args[i + 1 :])
            break
        if arg.startswith("-") and len(arg) > 1 and not operands:
            for k, ch in enumerate(arg[1:], start=1):
                if ch in value_opts:
                    value = arg[k + 1 :] or (args[i + 1] if i + 1 < len(args) else "")
                    if ch == "a":
                        arrays.append(value)
                    if not arg[k + 1 :]:
                        i += 1
                    break
            i += 1
            continue
        operands.append(arg)
        i += 1
    return arrays, operands


def input_names(name: str, args: list[str]) -> list[str]:
    """The variables ``read``, ``mapfile``/``readarray`` or ``getopts`` fill from input."""
    if name == "read":
        arrays, operands = _options(args, _READ_VALUE_OPTS)
        names = arrays + (operands or ["REPLY"])
    elif name in ("mapfile", "readarray"):
        from cairn.policy.shell.safeflags import value_options

        _, operands = _options(args, value_options(name)[0])
        names = operands[-1:] or ["MAPFILE"]
    elif name == "getopts":
        names = [*args[1:2], "OPTARG"]
    else:
        return []
    return [n.split("[", 1)[0] for n in names if _VALID.match(n)]


def arith_texts(name: str, args: list[str]) -> list[str]:
    """Argument texts a builtin evaluates as arithmetic (``let``, ``declare -i``)."""
    if name == "let":
        return list(args)
    if name in ("declare", "typeset", "local", "export", "readonly"):
        flags = "".join(a[1:] for a in args if a.startswith("-"))
        if "i" in flags:
            return [a for a in args if not a.startswith("-")]
    return []


def input_in_arithmetic(texts: Iterable[str], inputs: set[str]) -> str | None:
    """The first input-filled variable an arithmetic text uses, or ``None``."""
    if not inputs:
        return None
    for text in texts:
        for found in _NAME.findall(text):
            if found in inputs:
                return found
    return None


def _name_operands(name: str, args: list[str]) -> list[str]:
    """The arguments a builtin takes as variable names (not values)."""
    if name in ("printf",):
        return args[1:2] if args[:1] == ["-v"] else []
    if name in ("test", "["):
        return [args[k + 1] for k, a in enumerate(args[:-1]) if a == "-v"]
    if name == "getopts":
        return args[1:2]
    if name == "read":
        arrays, operands = _options(args, _READ_VALUE_OPTS)
        return arrays + operands
    if name in ("mapfile", "readarray"):
        from cairn.policy.shell.safeflags import value_options

        _, operands = _options(args, value_options(name)[0])
        return operands
    if name == "unset":
        return [a for a in args if not a.startswith("-")]
    if name in ("declare", "typeset", "local", "export", "readonly"):
        names = [a.split("=", 1)[0] for a in args if not a.startswith(("-", "+"))]
        if any(a.startswith("-") and "n" in a[1:] for a in args):
            # a nameref's value is itself a variable name, evaluated (subscript included) on use
            names += [a.split("=", 1)[1] for a in args if "=" in a and not a.startswith(("-", "+"))]
        return names
    return []


def dynamic_name(name: str, args: list[str], unknown: str) -> str | None:
    """Why a builtin would evaluate a variable name only known at run time, or ``None``.

    ``printf -v "$(cat f)"``, ``declare "$x"``, ``read "$name"``, ``test -v "$v"``: bash
    evaluates a subscript in such a name, so a name like ``a[$(cmd)]`` read from a file runs cmd.
    """
    if name not in _BUILTINS:
        return None
    for operand in _name_operands(name, args):
        if unknown in operand:
            return f"{name} takes a variable name that is only known at run time (a name such as a[$(cmd)] runs cmd)"
    return None
