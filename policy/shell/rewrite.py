"""Rewrite bash source into the subset bashlex parses, keeping what matters for the policy.

bashlex rejects ``$((…))``, ``((…))``, ``[[ … ]]``, ``case``, arrays, ``time``, ``coproc``,
``select``, C-style ``for``, extglobs and quoted here-doc delimiters, and silently misreads
``$'…'`` and ``$"…"``.  This scanner walks the text once (quote, substitution and here-doc
aware) and rewrites those constructs into equivalents bashlex reads, so the classifier still
sees every command inside them:

* ``$'\\x72\\x6d'`` -> ``'rm'`` (decoded; escapes that spell ordinary characters are noted as
  obfuscation), ``$"x"`` -> ``"x"``
* here-docs -> a here-string placeholder ``__CAIRN_HEREDOC_N__``; bodies are kept aside
* ``$((…))`` -> ``0``; ``((…))`` and ``[[ … ]]`` -> ``true``; ``time`` dropped; ``select`` -> ``for``
* ``case W in p) body;; esac`` -> ``{ : W ; { : ; body
  } ; }`` (every branch is analysed)
* ``a=(x y)`` -> ``a=__cairn_array__``; extglob ``!(x)`` -> ``*``

Anything the rewrite cannot make safe (command substitution inside arithmetic, ``[[ ]]`` or
``${…}``; unterminated quotes) is reported in ``fail`` and the caller fails closed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["HEREDOC_RE", "Heredoc", "Rewritten", "decode_ansi_c", "rewrite"]

HEREDOC_RE = re.compile(r"__CAIRN_HEREDOC_(\d+)__")
_OPERATORS = (
    ";;&",
    ";;",
    ";&",
    "&&",
    "||",
    "|&",
    "&>>",
    "&>",
    ">>",
    "<<<",
    "<<-",
    "<<",
    "<>",
    "<&",
    ">&",
    ">|",
)
_OP_CHARS = set(";&|<>()\n")
_KEEP_CMD_POS = {"if", "then", "else", "elif", "do", "while", "until", "{", "!", "function"}
_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_SPELLING = re.compile(r"[A-Za-z0-9/._~ -]")


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


def decode_ansi_c(body: str) -> tuple[str, bool]:
    """Decode the inside of ``$'…'``; the flag says escapes spelled ordinary characters."""
    out: list[str] = []
    spelled = False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        decoded: str | None = None
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
            continue
        if nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m
            decoded, i = chr(int(m.group(), 8) & 0xFF), i + 1 + len(m.group())
        elif nxt == "x" and re.match(r"[0-9A-Fa-f]", body[i + 2 : i + 3]):
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])
            assert m
            decoded, i = chr(int(m.group(), 16)), i + 2 + len(m.group())
        elif nxt in "uU" and re.match(r"[0-9A-Fa-f]", body[i + 2 : i + 3]):
            width = 4 if nxt == "u" else 8
            m = re.match(r"[0-9A-Fa-f]{1,%d}" % width, body[i + 2 :])  # noqa: UP031
            assert m
            code = int(m.group(), 16)
            decoded, i = (chr(code) if code < 0x110000 else "\ufffd"), i + 2 + len(m.group())
        elif nxt == "c" and i + 2 < len(body):
            decoded, i = chr(ord(body[i + 2]) & 0x1F), i + 3
        if decoded is None:
            out.append(ch + nxt)
            i += 2
            continue
        if _SPELLING.match(decoded):
            spelled = True
        out.append(decoded)
    text = "".join(out)
    if "\x00" in text:  # bash stops the string at a NUL
        text = text.split("\x00", 1)[0]
    return text, spelled


def _single_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class _Scanner:
    def __init__(self, src: str, result: Rewritten) -> None:
        self.src = src
        self.i = 0
        self.r = result
        self.pending: list[tuple[str, bool, bool, int]] = []  # delimiter, strip tabs, quoted, index

    # -- helpers ------------------------------------------------------------------------
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
        for op in _OPERATORS:
            if self.src.startswith(op, self.i):
                return op
        ch = self.peek()
        return ch if ch and ch in _OP_CHARS else None

    # -- lists ----------------------------------------------------------------------------
    def scan_list(self, closer: str | None = None, case_body: bool = False) -> str:
        """Scan commands until the end, an unmatched ``)`` (when ``closer``) or a case terminator."""
        out: list[str] = []
        cmd_pos = True
        depth = 0
        while self.i < len(self.src):
            ch = self.peek()
            if ch in (" ", "\t"):
                out.append(ch)
                self.i += 1
                continue
            if self.src.startswith("\\\n", self.i):
                self.i += 2
                continue
            if ch == "\n":
                out.append("\n")
                self.i += 1
                self.read_heredoc_bodies()
                cmd_pos = True
                continue
            if ch == "#" and (not out or out[-1][-1:] in (" ", "\t", "\n", ";", "&", "|", "(", ")")):
                while self.i < len(self.src) and self.peek() != "\n":
                    self.i += 1
                continue
            op = self.match_operator()
            if op is not None:
                if case_body and op in (";;", ";&", ";;&"):
                    self.i += len(op)
                    return "".join(out)
                if op == ")":
                    if depth > 0:
                        depth -= 1
                        out.append(")")
                        self.i += 1
                        cmd_pos = False
                        continue
                    if closer == ")":
                        self.i += 1
                        return "".join(out)
                    self.fail("unbalanced ')'")
                    out.append(")")
                    self.i += 1
                    continue
                if op == "(":
                    if cmd_pos and self.peek(1) == "(":
                        out.append(self.arith_command())
                        cmd_pos = False
                        continue
                    if cmd_pos:
                        self.i += 1
                        out.append("(" + self.scan_list(")") + ")")
                        cmd_pos = False
                        continue
                    depth += 1
                    out.append("(")
                    self.i += 1
                    continue
                if op in ("<", ">") and self.peek(1) == "(":
                    self.i += 2
                    out.append(op + "(" + self.scan_list(")") + ")")
                    cmd_pos = False
                    continue
                if op in ("<<", "<<-"):
                    out.append(self.heredoc_operator(op))
                    continue
                out.append(op)
                self.i += len(op)
                if op in (";", "&", "&&", "||", "|", "|&", ";;", ";&", ";;&"):
                    cmd_pos = True
                continue
            start = self.i
            word = self.scan_word()
            raw = self.src[start : self.i]
            if case_body and cmd_pos and raw == "esac":
                self.i = start
                return "".join(out)
            if cmd_pos:
                replaced = self.keyword(raw, word)
                if replaced is not None:
                    text, cmd_pos = replaced
                    out.append(text)
                    continue
            out.append(word)
            if cmd_pos and raw in _KEEP_CMD_POS:
                continue
            if cmd_pos and _ASSIGN_RE.match(raw):
                continue
            cmd_pos = False
        if closer == ")":
            self.fail("unterminated '$(' or '('")
        if case_body:
            self.fail("unterminated case statement")
        return "".join(out)

    def keyword(self, raw: str, word: str) -> tuple[str, bool] | None:
        """Rewrite a reserved word at command position; returns (text, still at command position)."""
        if raw == "[[":
            return self.double_bracket(), False
        if raw == "time":
            self.skip_blanks()
            if self.src.startswith("-p", self.i) and self.peek(2) in (" ", "\t", "\n", ""):
                self.i += 2
            return "", True
        if raw == "coproc":
            self.note("coproc runs a command as a co-process")
            save = self.i
            self.skip_blanks()
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*[ \t]+(?=[{(])", self.src[self.i :])
            if m:
                self.i += m.end()
            elif save != self.i:
                pass
            return "", True
        if raw == "select":
            return "for", False
        if raw == "for":
            blanks = self.skip_blanks()
            if self.src.startswith("((", self.i):
                self.arith_command()
                return "for" + blanks + "__cairn_i in 0", False
            return "for" + blanks, False
        if raw == "case":
            return self.case_statement(), False
        return None

    # -- words --------------------------------------------------------------------------
    def scan_word(self) -> str:
        out: list[str] = []
        while self.i < len(self.src):
            ch = self.peek()
            if ch in (" ", "\t") or ch in _OP_CHARS:
                if ch == "(" and out and out[-1][-1:] in ("@", "!", "+", "*", "?"):
                    out[-1] = out[-1][:-1]
                    self.i += 1
                    self.skip_balanced(")")
                    out.append("*")
                    continue
                if ch == "(" and _ASSIGN_RE.fullmatch("".join(out)):
                    self.i += 1
                    start = self.i
                    self.skip_balanced(")")
                    if re.search(r"\$\(|`|<\(|>\(", self.src[start : self.i]):
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
            out.append(ch)
            self.i += 1
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
            return _single_quote(decoded)
        if nxt == '"' and not in_double:
            self.i += 2
            return '"' + self.scan_double_quoted() + '"'
        if self.src.startswith("$((", self.i):
            save = self.i
            self.i += 3
            body = self.skip_arith()
            if body is not None:
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
            if re.search(r"\$\(|`|<\(|>\(", text[2:]):
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
            if ch == "'":
                end = self.src.find("'", self.i + 1)
                self.i = len(self.src) if end == -1 else end + 1
                continue
            if ch == '"':
                self.i += 1
                self.scan_double_quoted()
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

    def skip_arith(self) -> str | None:
        """After ``$((``/``((``: skip to the matching ``))``; ``None`` if it is not arithmetic."""
        start = self.i
        depth = 0
        while self.i < len(self.src):
            ch = self.peek()
            if ch in "'\"`":
                if ch == "'":
                    end = self.src.find("'", self.i + 1)
                    self.i = len(self.src) if end == -1 else end + 1
                elif ch == '"':
                    self.i += 1
                    self.scan_double_quoted()
                else:
                    self.scan_backtick()
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

    def arith_command(self) -> str:
        save = self.i
        self.i += 2
        body = self.skip_arith()
        if body is None:  # "( (subshell) )"
            self.i = save + 1
            return "(" + self.scan_list(")") + ")"
        if re.search(r"\$\(|`", body):
            self.fail("command substitution inside arithmetic command")
        return "true"

    def double_bracket(self) -> str:
        start = self.i
        while self.i < len(self.src):
            self.skip_blanks()
            if self.peek() == "\n":
                self.i += 1
                continue
            op = self.match_operator()
            if op is not None:
                self.i += len(op)
                continue
            wstart = self.i
            self.scan_word()
            if self.src[wstart : self.i] == "]]":
                if re.search(r"\$\(|`|<\(|>\(", self.src[start:wstart]):
                    self.fail("command substitution inside [[ ... ]]")
                return "true"
            if self.i == wstart:
                self.i += 1
        self.fail("unterminated [[ ... ]]")
        return "true"

    def case_statement(self) -> str:
        self.skip_blanks()
        subject = self.scan_word()
        parts = ["{ : " + subject + " ;"]
        while self.peek() in (" ", "\t", "\n"):
            self.i += 1
        if self.scan_word() != "in":
            self.fail("malformed case statement")
            return "".join(parts) + " }"
        while self.i < len(self.src):
            while self.peek() in (" ", "\t", "\n", ";"):
                self.i += 1
            if self.peek() == "#":
                while self.i < len(self.src) and self.peek() != "\n":
                    self.i += 1
                continue
            save = self.i
            if self.scan_word() == "esac":
                return " ".join(parts) + " }"
            self.i = save
            if self.peek() == "(":
                self.i += 1
            self.skip_balanced(")")  # the pattern list
            body = self.scan_list(case_body=True)
            parts.append("{ : ; " + body + "\n} ;")
        self.fail("unterminated case statement")
        return " ".join(parts) + " }"

    # -- here-documents -------------------------------------------------------------------
    def heredoc_operator(self, op: str) -> str:
        self.i += len(op)
        self.skip_blanks()
        start = self.i
        word = self.scan_word()
        raw = self.src[start : self.i]
        quoted = any(c in raw for c in "'\"\\")
        delimiter = re.sub(r"""['"\\]""", "", word)
        if not delimiter:
            self.fail("here-document without a delimiter")
        index = len(self.r.heredocs) + len(self.pending)
        self.pending.append((delimiter, op == "<<-", quoted, index))
        return f"<<< __CAIRN_HEREDOC_{index}__"

    def read_heredoc_bodies(self) -> None:
        pending, self.pending = self.pending, []
        for delimiter, strip_tabs, quoted, _index in pending:
            lines: list[str] = []
            while self.i < len(self.src):
                end = self.src.find("\n", self.i)
                line = self.src[self.i : end if end != -1 else len(self.src)]
                self.i = end + 1 if end != -1 else len(self.src)
                check = line.lstrip("\t") if strip_tabs else line
                if check == delimiter:
                    break
                lines.append(check)
            self.r.heredocs.append(Heredoc("\n".join(lines) + ("\n" if lines else ""), quoted))


def rewrite(source: str) -> Rewritten:
    """Rewrite ``source`` for bashlex; see the module docstring."""
    result = Rewritten(text="")
    scanner = _Scanner(source, result)
    text = scanner.scan_list()
    if scanner.pending:  # here-doc operator on the last line with no body
        scanner.read_heredoc_bodies()
    result.text = text
    return result


def skip_to_close(text: str, start: int, kind: str) -> int:
    """Index just after the construct opened before ``start``: ``kind`` is ``"$("`` or ``"${"``."""
    scanner = _Scanner(text, Rewritten(text=""))
    scanner.i = start
    if kind == "$(":
        scanner.scan_list(")")
    else:
        scanner.skip_balanced("}", opener="{")
    return scanner.i
