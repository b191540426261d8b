"""Splitting a command's arguments into options (with their values) and operands."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["first_unknown", "looks_like_path", "resolve_long", "split_args"]


def split_args(
    args: list[str],
    short_values: str = "",
    long_values: Collection[str] = (),
    *,
    stop_at_operand: bool = False,
    long_names: Collection[str] | None = None,
    optional: str = "",
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Options as ``(name, value)`` and operands, GNU style (``--`` ends options).

    ``short_values`` lists the single-letter options that take a value (``-n 5``, ``-n5``),
    ``long_values`` the long ones taking the next word when not written ``--opt=value``.
    ``long_names``, every long option the program has, makes abbreviations resolve as
    getopt_long resolves them (``--in-pl`` is ``--in-place``); one that does not resolve keeps
    its spelling, so the caller sees an option it does not know.  ``optional`` letters take
    the rest of their word as their value, never the next word (``sed -i.bak``).
    """
    opts: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    done = False
    while i < len(args):
        arg = args[i]
        if done or arg in ("", "-") or not arg.startswith("-"):
            operands.append(arg)
            done = done or stop_at_operand
            i += 1
            continue
        if arg == "--":
            done = True
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if long_names is not None:
                name = resolve_long(name, long_names) or name
            if eq:
                opts.append((name, value))
            elif name in long_values and i + 1 < len(args):
                opts.append((name, args[i + 1]))
                i += 1
            else:
                opts.append((name, None))
            i += 1
            continue
        j = 1
        while j < len(arg):
            letter = arg[j]
            if letter in optional:
                opts.append(("-" + letter, arg[j + 1 :] or None))
                break
            if letter in short_values:
                value = arg[j + 1 :]
                if not value and i + 1 < len(args):
                    value = args[i + 1]
                    i += 1
                opts.append(("-" + letter, value))
                break
            opts.append(("-" + letter, None))
            j += 1
        i += 1
    return opts, operands


def looks_like_path(text: str) -> bool:
    """A value that names a location outside the current directory (absolute, ~, ..)."""
    return text.startswith(("/", "~", "../")) or text == ".." or "/../" in text or text.endswith("/..")


def resolve_long(given: str, names: Collection[str]) -> str | None:
    """The long option ``given`` (``--in-pl``) stands for, as GNU getopt_long resolves it: an
    exact name, else the one name it is a prefix of; ``None`` when none or several match."""
    if given in names:
        return given
    matches = [n for n in names if n.startswith(given)]
    return matches[0] if len(matches) == 1 else None


def first_unknown(
    args: list[str],
    flags: str,
    valued: str,
    long: Collection[str],
    long_valued: Collection[str],
    *,
    numeric: bool = False,
    plus: str = "",
    signs: str = "-",
    pairs: Collection[str] = (),
) -> str | None:
    """The first option in ``args`` not on the lists (long names without ``--``), or ``None``.

    ``numeric`` accepts ``-20``; ``plus`` accepts ``+5`` (``"+num"``) or any ``+WORD``
    (``"+text"``); ``signs`` says which words are options (``"-+"``: ``+x`` is one too);
    ``pairs`` are long names taking two words (``jq --arg NAME VALUE``).
    A next word that looks like an option is never swallowed as a value, so no option can
    hide behind one (it is checked itself)."""
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            return None
        if arg in ("-", "") or not arg.startswith(tuple(signs)):
            continue
        if arg.startswith("+"):
            if (plus == "+num" and arg[1:].isdigit()) or plus == "+text":
                continue
            return arg
        if arg.startswith("--"):
            key, eq, _ = arg[2:].partition("=")
            if key in pairs:
                i += _takes_next(args, i, "")
                i += _takes_next(args, i, "")
            elif key in long_valued:
                i += _takes_next(args, i, eq)
            elif key not in long:
                return arg.split("=", 1)[0]
            continue
        if numeric and arg[1:].isdigit():
            continue
        for k, letter in enumerate(arg[1:], start=1):
            if letter in valued:
                i += 0 if arg[k + 1 :] else _takes_next(args, i, "")
                break
            if letter not in flags:
                return f"-{letter}" if len(arg) > 2 else arg
    return None


def _takes_next(args: list[str], i: int, eq: str) -> int:
    return 0 if eq or i >= len(args) or args[i].startswith("-") else 1
