"""The word-level half of the bash scanner: quotes, ``$…`` expansions, backquotes.

:class:`WordScanner` reads one word at a time from the source, rewriting ``$'…'`` (decoded),
``$"…"`` and arithmetic into forms bashlex parses, and recording why the text cannot be trusted
when it meets something it cannot make safe.  The list-level half is in ``rewrite.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cairn.policy.shell.bash.ansi import decode_ansi_c, single_quote
from cairn.policy.vocab import words

__all__ = [
    "ASSIGN_RE",
    "KEEP_CMD_POS",
    "OPERATORS",
    "OP_CHARS",
    "RUNS_CODE",
    "Heredoc",
    "Rewritten",
    "WordScanner",
]

OPERATORS = tuple(
    sorted(words(";;& ;; ;& && || |& &>> &> >> <<< <<- << <> <& >& >|"), key=len, reverse=True)
)  # longest first
OP_CHARS = set(";&|<>()\n")
KEEP_CMD_POS = {"if", "then", "else", "elif", "do", "while", "until", "{", "!", "function"}
ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


@dataclass
class Heredoc:
    body: str
    quoted: bool  # a quoted delimiter: no expansion happens in the body


@dataclass
class Rewritten:
    text: str
    heredocs: list[Heredoc] = field(default_factory=list)
    fail: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    arith: list[str] = field(default_factory=list)  # texts bash evaluates as arithmetic
    commands: int = 0  # simple commands seen (for the early fail-closed limit)


#: Characters with no special meaning inside a word (everything scan_word handles one by one).
RUNS_CODE = re.compile(r"\$\(|`|<\(|>\(")
_PLAIN_RUN = re.compile(r"[^\s\\'\"`$;&|()<>]+")


class WordScanner:
    """Reads words; ``self.i`` is the position in ``self.src``."""

    def __init__(self, src: str, result: Rewritten) -> None:
        self.src = src
        self.i = 0
        self.r = result
        self.pending: list[tuple[str, bool, bool, int]] = []  # delimiter, strip tabs, quoted, index

    def peek(self, n: int = 0) -> str:
        j = self.i + n
        return self.src[j] if j < len(self.src) else ""

    def fail(self, reason: str) -> None:
        if reason not in self.r.fail:
            self.r.fail.append(reason)

    def note(self, reason: str) -> None:
        if reason not in self.r.notes:
            self.r.notes.append(reason)

    def skip_blanks(self) -> str:
        start = self.i
        while self.peek() in (" ", "\t") or self.src.startswith("\\\n", self.i):
            self.i += 2 if self.peek() == "\\" else 1
        return self.src[start : self.i]

    def match_operator(self) -> str | None:
        for op in OPERATORS:
            if self.src.startswith(op, self.i):
                return op
        ch = self.peek()
        return ch if ch and ch in OP_CHARS else None

    def scan_word(self) -> str:
        out: list[str] = []
        while self.i < len(self.src):
            ch = self.peek()
            if ch in (" ", "\t") or ch in OP_CHARS:
                if ch == "(" and out and out[-1][-1:] in ("@", "!", "+", "*", "?"):
                    out[-1] = out[-1][:-1]
                    self.i += 1
                    start = self.i
                    self.skip_balanced(")")
                    if RUNS_CODE.search(self.src[start : self.i]):
                        self.note(
                            "an extglob pattern @(…)/!(…) contains a substitution, which runs when it is matched"
                        )
                    out.append("*")
                    continue
                if ch == "(" and ASSIGN_RE.fullmatch("".join(out)):
                    self.i += 1
                    start = self.i
                    self.skip_balanced(")")
                    if RUNS_CODE.search(self.src[start : self.i]):
                        self.fail("array assignment with command substitution")
                    out.append("__cairn_array__")
                    continue
                break
            if ch == "\\":
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                out.append(self.src[self.i : self.i + 2])
                self.i += 2
                continue
            if ch == "'":
                end = self.src.find("'", self.i + 1)
                if end == -1:
                    self.fail("unterminated single quote")
                    out.append(self.src[self.i :] + "'")
                    self.i = len(self.src)
                    continue
                out.append(self.src[self.i : end + 1])
                self.i = end + 1
                continue
            if ch == '"':
                self.i += 1
                out.append('"' + self.scan_double_quoted() + '"')
                continue
            if ch == "`":
                out.append(self.scan_backtick())
                continue
            if ch == "$":
                out.append(self.scan_dollar(in_double=False))
                continue
            m = _PLAIN_RUN.match(self.src, self.i)  # a run of ordinary characters at once
            end = m.end() if m else self.i + 1
            out.append(self.src[self.i : end])
            self.i = end
        return "".join(out)

    def scan_double_quoted(self) -> str:
        out: list[str] = []
        while self.i < len(self.src):
            ch = self.peek()
            if ch == '"':
                self.i += 1
                return "".join(out)
            if ch == "\\":
                if self.peek(1) == "\n":
                    self.i += 2
                    continue
                out.append(self.src[self.i : self.i + 2])
                self.i += 2
                continue
            if ch == "`":
                out.append(self.scan_backtick())
                continue
            if ch == "$":
                out.append(self.scan_dollar(in_double=True))
                continue
            out.append(ch)
            self.i += 1
        self.fail("unterminated double quote")
        return "".join(out)

    def scan_backtick(self) -> str:
        j = self.i + 1
        while j < len(self.src):
            if self.src[j] == "\\":
                j += 2
                continue
            if self.src[j] == "`":
                text = self.src[self.i : j + 1]
                self.i = j + 1
                return text
            j += 1
        self.fail("unterminated backquote")
        text = self.src[self.i :] + "`"
        self.i = len(self.src)
        return text

    def scan_dollar(self, in_double: bool) -> str:
        nxt = self.peek(1)
        if nxt == "'" and not in_double:
            end = self.i + 2
            while end < len(self.src) and self.src[end] != "'":
                end += 2 if self.src[end] == "\\" else 1
            if end >= len(self.src):
                self.fail("unterminated $'...' quote")
                self.i = len(self.src)
                return "''"
            decoded, spelled = decode_ansi_c(self.src[self.i + 2 : end])
            if spelled:
                self.note(f"ANSI-C quoting $'...' spells out {decoded[:40]!r} with escapes")
            self.i = end + 1
            return single_quote(decoded)
        if nxt == '"' and not in_double:
            self.note(
                'locale translation $"…" is replaced at run time from a message catalog '
                "(TEXTDOMAINDIR), and the translation is expanded again"
            )
            self.i += 2
            return '"' + self.scan_double_quoted() + '"'
        if self.src.startswith("$((", self.i):
            save = self.i
            self.i += 3
            body = self.skip_arith()
            if body is not None:
                self.r.arith.append(body)
                if re.search(r"\$\(|`", body):
                    self.fail("command substitution inside arithmetic expansion")
                if re.search(r"\[.*\$", body):
                    self.note("array subscript with expansion inside arithmetic (can run commands)")
                return "0"
            self.i = save
        if nxt == "[":
            self.i += 2
            start = self.i
            self.skip_balanced("]", opener="[")
            self.r.arith.append(self.src[start : self.i])
            if re.search(r"\$\(|`", self.src[start : self.i]):
                self.fail("command substitution inside arithmetic expansion")
            return "0"
        if nxt == "(":
            self.i += 2
            return "$(" + self.scan_list(")") + ")"
        if nxt == "{":
            start = self.i
            self.i += 2
            self.skip_balanced("}", opener="{")
            text = self.src[start : self.i]
            tail = re.sub(r"^\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*", "", text)[:-1]
            if tail.startswith("[") or re.match(r":[^-=+?]", tail):
                self.r.arith.append(tail)  # subscripts and substring offsets are arithmetic
            if RUNS_CODE.search(text[2:]):
                self.fail("command substitution inside ${...} is not analysed")
            return text
        self.i += 1
        return "$"

    def skip_balanced(self, closer: str, opener: str = "(") -> None:
        """Skip to just after the ``closer`` matching an already consumed opener (quote aware)."""
        depth = 0
        while self.i < len(self.src):
            ch = self.peek()
            if ch == "\\":
                self.i += 2
                continue
            if self.skip_quoted():
                continue
            if ch == opener:
                depth += 1
            elif ch == closer:
                if depth == 0:
                    self.i += 1
                    return
                depth -= 1
            self.i += 1
        self.fail(f"unterminated {opener}...{closer}")

    def skip_quoted(self, backtick: bool = False) -> bool:
        """Skip the quoted string (or backquote) at the position; whether there was one."""
        ch = self.peek()
        if ch == "'":
            end = self.src.find("'", self.i + 1)
            self.i = len(self.src) if end == -1 else end + 1
        elif ch == '"':
            self.i += 1
            self.scan_double_quoted()
        elif ch == "`" and backtick:
            self.scan_backtick()
        else:
            return False
        return True

    def skip_arith(self) -> str | None:
        """After ``$((``/``((``: skip to the matching ``))``; ``None`` if it is not arithmetic."""
        start = self.i
        depth = 0
        while self.i < len(self.src):
            ch = self.peek()
            if self.skip_quoted(backtick=True):
                continue
            if ch == "(":
                depth += 1
            elif ch == ")":
                if depth == 0:
                    if self.peek(1) == ")":
                        body = self.src[start : self.i]
                        self.i += 2
                        return body
                    return None
                depth -= 1
            self.i += 1
        return None
