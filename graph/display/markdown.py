"""Markdown for notebook display that no renderer can turn into raw HTML.

Untrusted text (model answers, tool output, call ids) reaches a Markdown renderer (markdown-it,
marked) in frontends that prefer ``text/markdown``. Markdown passes raw HTML through, so every
``<``, ``>`` and ``&`` outside code must be escaped, and "code" must mean code for every parser.

``md_text`` therefore does not keep the model's code spans and fences as written: it reads them
(CommonMark-like) and writes them again in a canonical form whose extent no parser can disagree
about, while every backtick outside them becomes ``&#96;``, which never delimits code. A mistake
in reading the model's intent can then only show too much or too little as code; it can never put
code-span content (which is not escaped) outside code. Code spans that contain ``|`` are shown as
escaped text, because GFM tables split cells on pipes even inside code spans.
"""

from __future__ import annotations

import html
import re
import string
from typing import Any

from cairn.tools.file_ops.names import escape_text
from cairn.tools.output import truncate_middle

#: Longest tool output shown in a cell (head and tail kept); the model's limit is separate.
MAX_SHOWN_CHARS = 20_000
_PUNCT = frozenset(string.punctuation)
_ENTITY = {"<": "&lt;", ">": "&gt;", "&": "&amp;", "`": "&#96;"}
_FENCE_OPEN = re.compile(r"([ \t]*)(`{3,}|~{3,})(.*)")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_NEWLINES = re.compile(r"\r\n|\r|\n")
_TICKS = re.compile(r"`+")


def md_inline(text: Any) -> str:
    """Untrusted text inside Markdown prose: no raw HTML, no code, emphasis, links, tables or fences."""
    return re.sub(r"([\\`*_\[\]|#~])", r"\\\1", html.escape(escape_text(str(text)), quote=False))


def md_cell(text: Any, limit: int = 80) -> str:
    line = " ".join(str(text).split())
    return md_inline(line if len(line) <= limit else line[: limit - 1] + "…")


def md_code(text: Any) -> str:
    """An inline code span for an identifier (safe in a table cell). Text that a code span cannot
    hold safely everywhere (backticks, pipes, backslashes, HTML characters) is escaped text instead."""
    value = " ".join(str(text).split())
    if not value or any(ch in value for ch in "`|\\<>&"):
        return md_inline(value)
    return f"`{value}`"


def fence(text: str, lang: str = "", *, limit: int | None = MAX_SHOWN_CHARS) -> str:
    """A fenced code block that ``text`` cannot close early, whatever backticks it holds."""
    text = escape_text(text)
    body = truncate_middle(text, limit) if limit is not None else text
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    info = re.sub(r"[^\w+#.-]", "", lang)[:40]  # an info string with a backtick is no fence at all
    return f"{ticks}{info}\n{body}\n{ticks}"


def md_text(text: str) -> str:
    """Model-written Markdown kept as Markdown (headings, lists, emphasis, tables, code), with
    every bit of raw HTML outside code shown as text and no images (tracking pixels)."""
    blocks: list[str] = []
    prose: list[str] = []
    lines = _NEWLINES.split(escape_text(text))
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.fullmatch(lines[i])
        if opening is None or (opening.group(2)[0] == "`" and "`" in opening.group(3)):
            prose.append(lines[i])
            i += 1
            continue
        indent, marker, info = opening.groups()
        closing = re.compile(rf"[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*")
        body: list[str] = []
        i += 1
        while i < len(lines) and not closing.fullmatch(lines[i]):
            body.append(_dedent(lines[i], len(indent)))
            i += 1
        i += 1  # the closing fence (an unclosed fence runs to the end, as in CommonMark)
        blocks.append(_prose("\n".join(prose)))
        prose = []
        words = info.split()
        blocks.append(fence("\n".join(body), words[0] if words else "", limit=None))
    blocks.append(_prose("\n".join(prose)))
    return "\n\n".join(block for block in blocks if block)


def _dedent(line: str, width: int) -> str:
    cut = 0
    while cut < width and cut < len(line) and line[cut] in " \t":
        cut += 1
    return line[cut:]


def _prose(text: str) -> str:
    """Text between fences: HTML characters and stray backticks as entities, code spans canonical."""
    text = text.strip("\n")
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
            escaped = text[i + 1]
            out.append(_ENTITY.get(escaped, "\\" + escaped))
            i += 2
        elif ch == "`":
            j = i
            while j < n and text[j] == "`":
                j += 1
            end = _closing_run(text, j, j - i)
            if end is None:
                out.append("&#96;" * (j - i))
                i = j
            else:
                out.append(_code_span(text[j:end]))
                i = end + (j - i)
        elif ch == "!" and text.startswith("[", i + 1):
            out.append("\\!")  # ![alt](url) would load any URL: show it as a link instead
            i += 1
        else:
            out.append(_ENTITY.get(ch, ch))
            i += 1
    return "".join(out)


def _closing_run(text: str, start: int, length: int) -> int | None:
    """Where the backtick run of exactly ``length`` closing a code span starts (same paragraph)."""
    blank = _BLANK_LINE.search(text, start)
    for run in _TICKS.finditer(text, start, blank.start() if blank else len(text)):
        if len(run.group()) == length:
            return run.start()
    return None


def _code_span(content: str) -> str:
    content = _NEWLINES.sub(" ", content)
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    if "|" in content:
        return "&#96;" + md_inline(content) + "&#96;"
    if not content.strip(" "):
        return "`" + content + "`"
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    ticks = "`" * (longest + 1)
    return f"{ticks} {content} {ticks}"
