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

from cairn.policy.shell.bash.scanner import (
    ASSIGN_RE,
    KEEP_CMD_POS,
    RUNS_CODE,
    Heredoc,
    Rewritten,
    WordScanner,
)

__all__ = ["HEREDOC_RE", "Heredoc", "Rewritten", "rewrite", "skip_to_close"]

HEREDOC_RE = re.compile(r"__CAIRN_HEREDOC_(\d+)__")


class _Scanner(WordScanner):
    """Adds the list level: operators, keywords at command position, case, here-documents."""

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
                    self.i += 1
                    if depth > 0:
                        depth -= 1
                        out.append(")")
                        cmd_pos = False
                        continue
                    if closer == ")":
                        return "".join(out)
                    self.fail("unbalanced ')'")
                    out.append(")")
                    continue
                opened = self.open_paren(op, cmd_pos)
                if opened is not None:
                    text, cmd_pos, more = opened
                    out.append(text)
                    depth += more
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
            if cmd_pos and raw in KEEP_CMD_POS:
                continue
            if cmd_pos and ASSIGN_RE.match(raw):
                continue
            if cmd_pos:
                self.r.commands += 1
            cmd_pos = False
        if closer == ")":
            self.fail("unterminated '$(' or '('")
        if case_body:
            self.fail("unterminated case statement")
        return "".join(out)

    def open_paren(self, op: str, cmd_pos: bool) -> tuple[str, bool, int] | None:
        """``(`` (a subshell at command position, else a grouping), ``((``, ``<(`` and ``>(`` at
        the scanner's position: (text, still at command position, depth change), or ``None``."""
        if op == "(":
            if cmd_pos and self.peek(1) == "(":
                return self.arith_command(), False, 0
            self.i += 1
            if cmd_pos:
                return "(" + self.scan_list(")") + ")", False, 0
            return "(", cmd_pos, 1
        if op in ("<", ">") and self.peek(1) == "(":
            self.i += 2
            return op + "(" + self.scan_list(")") + ")", False, 0
        return None

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
            self.skip_blanks()
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*[ \t]+(?=[{(])", self.src[self.i :])
            self.i += m.end() if m else 0
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

    def arith_command(self) -> str:
        save = self.i
        self.i += 2
        body = self.skip_arith()
        if body is None:  # "( (subshell) )"
            self.i = save + 1
            return "(" + self.scan_list(")") + ")"
        self.r.arith.append(body)
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
                if re.search(r"\s-(eq|ne|lt|le|gt|ge)\s", self.src[start:wstart]):
                    self.r.arith.append(self.src[start:wstart])  # operands are evaluated as arithmetic
                if RUNS_CODE.search(self.src[start:wstart]):
                    self.fail("command substitution inside [[ ... ]]")
                for name in re.findall(r"(?:^|\s)-v\s+(\S+)", self.src[start:wstart]):
                    if name.lstrip("\"'").startswith("$"):
                        # the name is a variable's value: bash evaluates a subscript in it
                        self.fail("[[ -v ]] takes a variable name from a variable (a[$(cmd)] would run cmd)")
                    elif "[" in name:
                        self.r.arith.append(name)  # the subscript is evaluated as arithmetic
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
            start = self.i
            self.skip_balanced(")")  # the pattern list
            if RUNS_CODE.search(self.src[start : self.i]):
                self.note("a case pattern contains a substitution, which runs when it is matched")
            body = self.scan_list(case_body=True)
            parts.append("{ : ; " + body + "\n} ;")
        self.fail("unterminated case statement")
        return " ".join(parts) + " }"

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
