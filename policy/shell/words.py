"""Expanding one shell word the way bash would, as far as it can be known statically.

Quotes are removed, ``~`` and parameters are expanded from a small environment (``HOME``,
``PWD``, ``IFS`` and the literal assignments made earlier in the same command), command
substitutions are evaluated when they are plain ``echo``/``printf``/``base64 -d`` pipelines
(through a callback), unquoted results are word-split, and brace expansion is applied.
Anything unknowable is replaced by :data:`UNKNOWN`, so callers can tell "some path I cannot
see" from a real one.  Each word yields at most a handful of candidate expansions.
"""

from __future__ import annotations

import fnmatch
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from policy.shell.rewrite import skip_to_close

__all__ = ["UNKNOWN", "Env", "WordExp", "brace_expand", "expand_word", "has_unknown"]

UNKNOWN = "\x00unknown\x00"
MAX_CANDIDATES = 8
Env = Mapping[str, Sequence[str]]
SubstEval = Callable[[str], "str | None"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set("@*#?$!-_0123456789")


def has_unknown(text: str) -> bool:
    return UNKNOWN in text


@dataclass
class _Piece:
    text: str
    split: bool  # unquoted expansion result: subject to word splitting


@dataclass
class WordExp:
    """The candidate expansions of one word, each a list of fields."""

    values: list[list[str]] = field(default_factory=list)
    dynamic: bool = False  # parameter or command substitution involved
    unknown: bool = False  # some part could not be known
    glob: bool = False  # unquoted glob characters
    subst: bool = False  # command substitution involved
    quoted: bool = False  # quotes or backslashes in the raw text
    indirect: bool = False  # ${!name} indirection


def brace_expand(raw: str, limit: int = 16) -> list[str]:
    """Expand unquoted ``{a,b}`` and ``{1..3}`` in raw word text (at most ``limit`` results)."""
    spans = _find_brace(raw)
    if spans is None:
        return [raw]
    start, end, items = spans
    results: list[str] = []
    for item in items:
        for tail in brace_expand(raw[:start] + item + raw[end + 1 :], limit):
            results.append(tail)
            if len(results) >= limit:
                return results
    return results


def _find_brace(raw: str) -> tuple[int, int, list[str]] | None:
    quote = ""
    i = 0
    while i < len(raw):
        ch = raw[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
            i += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 1
        elif ch == "$" and raw[i + 1 : i + 2] == "{":
            i = skip_to_close(raw, i + 2, "${")
            continue
        elif ch == "{":
            depth, j, commas = 0, i + 1, [i]
            q2 = ""
            while j < len(raw):
                c = raw[j]
                if q2:
                    if c == q2:
                        q2 = ""
                elif c in "'\"":
                    q2 = c
                elif c == "{":
                    depth += 1
                elif c == "}":
                    if depth == 0:
                        break
                    depth -= 1
                elif c == "," and depth == 0:
                    commas.append(j)
                j += 1
            if j < len(raw):
                body = raw[i + 1 : j]
                if len(commas) > 1:
                    bounds = [*commas, j]
                    items = [raw[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
                    return i, j, items
                m = re.fullmatch(r"(-?\d+)\.\.(-?\d+)|([a-zA-Z])\.\.([a-zA-Z])", body)
                if m and m.group(1) is not None:
                    a, b = int(m.group(1)), int(m.group(2))
                    step = 1 if b >= a else -1
                    return i, j, [str(n) for n in range(a, b + step, step)][:16]
                if m:
                    a, b = ord(m.group(3)), ord(m.group(4))
                    step = 1 if b >= a else -1
                    return i, j, [chr(n) for n in range(a, b + step, step)][:16]
        i += 1
    return None


class _Expander:
    def __init__(self, env: Env, subst: SubstEval | None, result: WordExp) -> None:
        self.env = env
        self.subst = subst
        self.r = result

    def param(self, expr: str) -> list[str]:
        """Candidate values of ``${expr}`` (without the braces)."""
        self.r.dynamic = True
        if expr.startswith("!"):
            self.r.indirect = True
            name = expr[1:]
            if _NAME.fullmatch(name):
                targets = self.lookup(name)
                out: list[str] = []
                for t in targets:
                    out.extend(self.lookup(t) if _NAME.fullmatch(t) else [UNKNOWN])
                return out[:MAX_CANDIDATES] or [UNKNOWN]
            return [UNKNOWN]
        if expr.startswith("#") and len(expr) > 1:
            return ["0"]
        m = _NAME.match(expr) or (re.match(r"[@*#?$!\-_0-9]", expr))
        if not m:
            return [UNKNOWN]
        name, rest = m.group(), expr[m.end() :]
        values = self.lookup(name)
        if not rest:
            return values
        if rest.startswith("["):
            return [UNKNOWN]
        for op in (":-", ":=", ":?", ":+", "-", "=", "?", "+"):
            if rest.startswith(op):
                word_values = self.sub_word(rest[len(op) :])
                out = []
                for v in values:
                    unset_or_null = v == UNKNOWN or (op.startswith(":") and v == "")
                    if op.endswith("+"):
                        out.extend(word_values if v != "" else [""])
                        if v == UNKNOWN:
                            out.append("")
                    elif v == UNKNOWN:
                        out.extend([*word_values, UNKNOWN])
                    elif unset_or_null:
                        out.extend(word_values)
                    else:
                        out.append(v)
                return _dedupe(out)
        if rest.startswith(":"):
            m2 = re.fullmatch(r":\s*(-?\d+)(?::\s*(-?\d+))?", rest)
            if not m2:
                return [UNKNOWN]
            off = int(m2.group(1))
            length = int(m2.group(2)) if m2.group(2) is not None else None
            return [_substring(v, off, length) for v in values]
        for op in ("##", "#", "%%", "%"):
            if rest.startswith(op):
                pattern = rest[len(op) :]
                return [_trim(v, op, pattern) for v in values]
        if rest.startswith("/"):
            m3 = re.fullmatch(r"/([/#%]?)([^/]*)(?:/(.*))?", rest, re.DOTALL)
            if not m3:
                return [UNKNOWN]
            return [_replace(v, m3.group(1), m3.group(2), m3.group(3) or "") for v in values]
        case_ops = {
            "^^": str.upper,
            ",,": str.lower,
            "^": lambda s: s[:1].upper() + s[1:],
            ",": lambda s: s[:1].lower() + s[1:],
        }
        if rest in case_ops:
            return [v if v == UNKNOWN else case_ops[rest](v) for v in values]
        return [UNKNOWN]

    def lookup(self, name: str) -> list[str]:
        if name in ("#", "?", "$", "!"):
            return ["0"]
        values = self.env.get(name)
        if not values:
            self.r.unknown = True
            return [UNKNOWN]
        if any(UNKNOWN in v for v in values):
            self.r.unknown = True
        return list(values)[:MAX_CANDIDATES]

    def sub_word(self, raw: str) -> list[str]:
        """Expand the word inside ``${x:-word}`` (quotes removed, no splitting)."""
        sub = expand_word(raw, self.env, self.subst, split=False)
        self.r.unknown |= sub.unknown
        self.r.subst |= sub.subst
        return [" ".join(v) for v in sub.values] or [""]

    def command(self, inner: str) -> list[str]:
        self.r.dynamic = True
        self.r.subst = True
        value = self.subst(inner) if self.subst else None
        if value is None:
            self.r.unknown = True
            return [UNKNOWN]
        return [value.rstrip("\n")]


def _dedupe(values: list[str]) -> list[str]:
    out: list[str] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out[:MAX_CANDIDATES]


def _substring(value: str, off: int, length: int | None) -> str:
    if value == UNKNOWN:
        return UNKNOWN
    start = off if off >= 0 else max(len(value) + off, 0)
    if length is None:
        return value[start:]
    end = start + length if length >= 0 else len(value) + length
    return value[start:end]


def _trim(value: str, op: str, pattern: str) -> str:
    if value == UNKNOWN:
        return UNKNOWN
    sizes = range(len(value) + 1)
    if op.startswith("#"):
        order = reversed(sizes) if op == "##" else sizes
        for n in order:
            if fnmatch.fnmatchcase(value[:n], pattern):
                return value[n:]
    else:
        order = sizes if op == "%%" else reversed(sizes)
        for n in order:
            if fnmatch.fnmatchcase(value[n:], pattern):
                return value[:n]
    return value


def _replace(value: str, mode: str, pattern: str, repl: str) -> str:
    if value == UNKNOWN or not pattern:
        return value
    regex = fnmatch.translate(pattern)[4:-3]  # strip (?s: ... )\Z
    if mode == "#":
        return re.sub("^(?:" + regex + ")", repl.replace("\\", "\\\\"), value, count=1)
    if mode == "%":
        return re.sub("(?:" + regex + ")$", repl.replace("\\", "\\\\"), value, count=1)
    return re.sub(regex, repl.replace("\\", "\\\\"), value, count=0 if mode == "/" else 1)


def _combine(raw: str, ex: _Expander, assignment: bool) -> list[list[_Piece]]:
    """Second pass building candidates in order (the first pass only set flags)."""
    seq: list[list[_Piece]] = []  # each element: alternatives, as single-piece lists
    i = 0
    quote = ""
    at_start = True
    while i < len(raw):
        ch = raw[i]
        if not quote and at_start and ch == "~":
            m = re.match(r"~([A-Za-z0-9_.-]*)(?=/|$|:)", raw[i:])
            if m:
                if m.group(1):
                    import os

                    seq.append([_Piece(os.path.expanduser("~" + m.group(1)), False)])
                else:
                    seq.append([_Piece(h, False) for h in ex.env.get("HOME", [UNKNOWN])[:MAX_CANDIDATES]])
                i += m.end()
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
        values: list[str] | None = None
        if ch == "`":
            j = i + 1
            while j < len(raw) and raw[j] != "`":
                j += 2 if raw[j] == "\\" else 1
            values, i = ex.command(raw[i + 1 : j]), j + 1
        elif ch == "$" and raw[i + 1 : i + 2] == "(":
            end = skip_to_close(raw, i + 2, "$(")
            values, i = ex.command(raw[i + 2 : end - 1]), end
        elif ch == "$" and raw[i + 1 : i + 2] == "{":
            end = skip_to_close(raw, i + 2, "${")
            values, i = ex.param(raw[i + 2 : end - 1]), end
        elif ch == "$" and _NAME.match(raw, i + 1):
            m = _NAME.match(raw, i + 1)
            assert m
            values, i = ex.param(m.group()), m.end()
        elif ch == "$" and raw[i + 1 : i + 2] and raw[i + 1] in _SPECIAL:
            values, i = ex.param(raw[i + 1]), i + 2
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
    combos: list[list[_Piece]] = []
    for combo in itertools.islice(itertools.product(*seq), MAX_CANDIDATES):
        combos.append(list(combo))
    return combos or [[]]


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
    """Expand raw word text into candidate field lists."""
    result = WordExp()
    ex = _Expander(env, subst, result)
    ifs_values = env.get("IFS", [" \t\n"])
    ifs = ifs_values[0] if len(ifs_values) == 1 and UNKNOWN not in ifs_values[0] else " \t\n"
    raws = brace_expand(raw) if not assignment else [raw]
    for variant in raws:
        for pieces in _combine(variant, ex, assignment):
            if any(c in variant for c in "'\"\\"):
                result.quoted = True
            fields = _split(pieces, ifs) if split else ["".join(p.text for p in pieces)]
            if not split and not fields:
                fields = [""]
            if fields not in result.values:
                result.values.append(fields)
            if len(result.values) >= MAX_CANDIDATES:
                break
    result.unknown = result.unknown or any(UNKNOWN in f for v in result.values for f in v)
    return result
