"""Expanding one shell word the way bash would, as far as it can be known statically.

Quotes are removed, ``~`` and parameters are expanded from a small environment (``HOME``,
``PWD``, ``IFS`` and the literal assignments made earlier in the same command), command
substitutions are evaluated when they are plain ``echo``/``printf``/``base64 -d`` pipelines
(through a callback), unquoted results are word-split, and brace expansion is applied.
Anything unknowable is replaced by :data:`UNKNOWN`, so callers can tell "some path I cannot
see" from a real one.  Each word yields at most a handful of candidate expansions.
"""

from __future__ import annotations

import itertools
import os
import re

from cairn.policy.shell.bash.braces import brace_expand
from cairn.policy.shell.bash.params import Expander
from cairn.policy.shell.bash.rewrite import skip_to_close
from cairn.policy.shell.bash.wordtypes import (
    _NAME,
    _SPECIAL,
    MAX_BRACE,
    MAX_CANDIDATES,
    UNKNOWN,
    Env,
    SubstEval,
    WordExp,
    _Piece,
    capped,
)

__all__ = ["UNKNOWN", "Env", "WordExp", "brace_expand", "expand_word"]


def _combine(raw: str, ex: Expander, assignment: bool) -> list[list[_Piece]]:
    """Second pass building candidates in order (the first pass only set flags)."""
    seq: list[list[_Piece]] = []  # each element: alternatives, as single-piece lists
    i = 0
    quote = ""
    at_start = True
    while i < len(raw):
        ch = raw[i]
        if not quote and at_start and ch == "~":
            m = _TILDE.match(raw, i)
            if m:
                seq.append([_Piece(v, False) for v in _tilde(m.group(1), ex)])
                i = m.end()
                at_start = False
                continue
        at_start = False
        if assignment and not quote and ch in "=:" and raw[i + 1 : i + 2] == "~":
            seq.append([_Piece(ch, False)])
            i += 1
            at_start = True
            continue
        if quote == "'":
            end = raw.find("'", i)
            end = len(raw) if end == -1 else end
            seq.append([_Piece(raw[i:end], False)])
            i, quote = end + 1, ""
            continue
        if ch == "'" and not quote:
            quote = "'"
            seq.append([_Piece("", False)])  # '' is still an (empty) argument
            i += 1
            continue
        if ch == '"':
            if not quote:
                seq.append([_Piece("", False)])
            quote = "" if quote == '"' else '"'
            i += 1
            continue
        if ch == "\\":
            nxt = raw[i + 1 : i + 2]
            if quote == '"' and nxt not in ("$", "`", '"', "\\", "\n"):
                seq.append([_Piece("\\" + nxt, False)])
            elif nxt != "\n":
                seq.append([_Piece(nxt, False)])
            i += 2
            continue
        values, i = _expansion(raw, i, ex)
        if values is not None:
            split = not quote and not assignment
            if split and any(c in v for v in values for c in "*?["):
                ex.r.glob = True
            seq.append([_Piece(v, split) for v in values])
            continue
        j = i + 1
        while j < len(raw) and raw[j] not in "'\"\\`$":
            j += 1
        text = raw[i:j]
        if not quote and any(c in text for c in "*?["):
            ex.r.glob = True
        seq.append([_Piece(text, False)])
        i = j
    return [list(combo) for combo in itertools.islice(itertools.product(*seq), MAX_CANDIDATES + 1)] or [[]]


def _expansion(raw: str, i: int, ex: Expander) -> tuple[list[str] | None, int]:
    """The values of the substitution or parameter starting at ``raw[i]`` and the index after
    it, or ``(None, i)`` when none starts there."""
    ch = raw[i]
    if ch == "`":
        j = i + 1
        while j < len(raw) and raw[j] != "`":
            j += 2 if raw[j] == "\\" else 1
        return ex.command(raw[i + 1 : j]), j + 1
    if ch != "$":
        return None, i
    nxt = raw[i + 1 : i + 2]
    if nxt == "(":
        end = skip_to_close(raw, i + 2, "$(")
        return ex.command(raw[i + 2 : end - 1]), end
    if nxt == "{":
        end = skip_to_close(raw, i + 2, "${")
        return ex.param(raw[i + 2 : end - 1]), end
    m = _NAME.match(raw, i + 1)
    if m:
        return ex.param(m.group()), m.end()
    if nxt and nxt in _SPECIAL:
        return ex.param(nxt), i + 2
    return None, i


_TILDE = re.compile(r"~([+-]?[0-9]+|[+-]|[A-Za-z0-9_.-]*)(?=/|$|:)")


def _tilde(prefix: str, ex: Expander) -> list[str]:
    """A tilde prefix as bash resolves it: ``~`` is $HOME, ``~+`` $PWD, ``~-`` $OLDPWD, ``~N``
    and ``~+N``/``~-N`` the directory stack (never known here), ``~user`` that user's home (the
    word is left as it is when there is no such user)."""
    if prefix == "":
        return capped(list(ex.env.get("HOME", [UNKNOWN])))
    if prefix in ("+", "-"):
        return capped(list(ex.env.get("PWD" if prefix == "+" else "OLDPWD", [UNKNOWN])))
    if prefix.lstrip("+-").isdigit():
        return [UNKNOWN]
    return [os.path.expanduser("~" + prefix)]


def _split(pieces: list[_Piece], ifs: str) -> list[str]:
    fields: list[str] = []
    current = ""
    started = False
    for piece in pieces:
        if not piece.split:
            current += piece.text
            started = True
            continue
        parts = re.split("[" + re.escape(ifs) + "]+", piece.text) if ifs else [piece.text]
        for k, part in enumerate(parts):
            if k > 0:
                if started or current:
                    fields.append(current)
                current, started = "", False
            current += part
            started = started or bool(part)
    if current or started:
        fields.append(current)
    return fields


def expand_word(
    raw: str,
    env: Env,
    subst: SubstEval | None = None,
    *,
    split: bool = True,
    assignment: bool = False,
) -> WordExp:
    """Expand raw word text into candidate field lists (an assignment's value is not split)."""
    result = WordExp()
    ex = Expander(env, subst, result, expand_word)
    ifs_values = env.get("IFS", [" \t\n"])
    ifs = ifs_values[0] if len(ifs_values) == 1 and UNKNOWN not in ifs_values[0] else " \t\n"
    variants = brace_expand(raw, MAX_BRACE + 1) if not assignment else [raw]
    cut = len(variants) > MAX_BRACE
    per_variant: list[list[list[str]]] = []
    for variant in variants[:MAX_BRACE]:
        if any(c in variant for c in "'\"\\"):
            result.quoted = True
        options: list[list[str]] = []
        for pieces in _combine(variant, ex, assignment):
            fields = _split(pieces, ifs) if split and not assignment else ["".join(p.text for p in pieces)]
            if fields not in options:
                options.append(fields)
        per_variant.append(options)
    # a brace expression gives several words of one command line, not alternatives
    for combo in itertools.islice(itertools.product(*per_variant), MAX_CANDIDATES + 1):
        fields = [f for part in combo for f in part] + ([UNKNOWN] if cut else [])
        if fields not in result.values:
            result.values.append(fields)
    if len(result.values) > MAX_CANDIDATES:  # candidates the policy did not check: unknown
        result.values = [*result.values[: MAX_CANDIDATES - 1], [UNKNOWN]]
    result.unknown = result.unknown or any(UNKNOWN in f for v in result.values for f in v)
    return result
