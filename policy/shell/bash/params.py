"""Parameter expansion operators (``${x:-y}``, ``${x#p}``, ``${x/a/b}`` ...) over candidate values."""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from cairn.policy.shell.bash.wordtypes import _NAME, UNKNOWN, Env, SubstEval, WordExp, capped

__all__ = ["Expander"]


class Expander:
    def __init__(self, env: Env, subst: SubstEval | None, result: WordExp, expand_word: Any) -> None:
        self.env = env
        #: ``words.expand_word``, passed in: the two recurse into each other.
        self.expand_word = expand_word
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
                    if not _NAME.fullmatch(t):
                        # ${!x} evaluates x's value as a name: 'a[$(cmd)]' runs cmd
                        self.r.evaluates = f"${{!{name}}} uses a variable name only known at run time"
                    out.extend(self.lookup(t) if _NAME.fullmatch(t) else [UNKNOWN])
                return capped(out) or [UNKNOWN]
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\*|@|\[[@*]\])", name):
                self.r.evaluates = f"${{!{name}}} is an indirect expansion the policy cannot follow"
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
                return capped(list(dict.fromkeys(out)))
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
        if rest.startswith("@") and "P" in rest[1:]:
            self.r.evaluates = f"${{{name}@P}} expands the value as a prompt, which runs $(…) in it"
        return [UNKNOWN]

    def lookup(self, name: str) -> list[str]:
        if name in ("#", "?", "$", "!"):
            return ["0"]
        values = self.env.get(name) or [UNKNOWN]  # unset: unknown
        self.r.unknown = self.r.unknown or any(UNKNOWN in v for v in values)
        return capped(values)

    def sub_word(self, raw: str) -> list[str]:
        """Expand the word inside ``${x:-word}`` (quotes removed, no splitting)."""
        sub = self.expand_word(raw, self.env, self.subst, split=False)
        self.r.unknown |= sub.unknown
        self.r.subst |= sub.subst
        self.r.evaluates = self.r.evaluates or sub.evaluates
        return [" ".join(v) for v in sub.values] or [""]

    def command(self, inner: str) -> list[str]:
        self.r.dynamic = True
        self.r.subst = True
        value = self.subst(inner) if self.subst else None
        if value is None:
            self.r.unknown = True
            return [UNKNOWN]
        return [value.rstrip("\n")]


def _substring(value: str, off: int, length: int | None) -> str:
    if value == UNKNOWN:
        return UNKNOWN
    start = off if off >= 0 else max(len(value) + off, 0)
    end = None if length is None else start + length if length >= 0 else len(value) + length
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
