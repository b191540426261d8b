"""Streamed Markdown for the terminal: split the model's text into blocks as they close.

Tokens arrive a few characters at a time. Re-rendering a growing answer on every token makes
the screen flicker (and a live region taller than the screen cannot be redrawn at all), so
the answer is printed block by block: a paragraph, list, table or heading is printed, rendered
with rich's Markdown and word-wrapped to the terminal, once a blank line outside a code fence
closes it. A code fence is one block however many blank lines it holds. Only the block being
written is redrawn (in the renderer's live region), and it is short.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from cairn.graph.display.answer import markdown_parser

_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")


class BlockSplitter:
    """``feed(text)`` returns the Markdown blocks that closed; ``flush()`` returns the rest."""

    def __init__(self) -> None:
        self._done: list[str] = []  # lines of the open block
        self._partial = ""  # the current line, not ended yet
        self._fence: str | None = None  # the marker of the open code fence

    @property
    def draft(self) -> str:
        """The open block as written so far (what the live region shows)."""
        return "\n".join([*self._done, self._partial]).strip("\n")

    def feed(self, text: str) -> list[str]:
        closed: list[str] = []
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for line in lines:
            block = self._line(line)
            if block:
                closed.append(block)
        return closed

    def flush(self) -> str:
        """Everything not printed yet (the end of the message); resets the splitter."""
        rest = self.draft
        self._done, self._partial, self._fence = [], "", None
        return rest

    def _line(self, line: str) -> str | None:
        opening = _FENCE.match(line)
        if self._fence is not None:
            self._done.append(line)
            marker = opening.group(1) if opening else ""
            closes = marker[:1] == self._fence[0] and len(marker) >= len(self._fence)
            if closes and not line.strip().strip(self._fence[0]):
                self._fence = None
                return self._close()
            return None
        if opening:
            before = self._close() if any(x.strip() for x in self._done) else None
            self._done.append(line)
            self._fence = opening.group(1)
            return before
        if not line.strip():
            return self._close()
        self._done.append(line)
        return None

    def _close(self) -> str | None:
        block = "\n".join(self._done).strip("\n")
        self._done = []
        return block or None


def markdown(text: str) -> Any:
    """A rich renderable of ``text`` as Markdown: headings left-aligned, code highlighted,
    links shown with their address (a person sees where a link goes).

    ``rich.markdown.Markdown`` builds a new markdown-it parser for every text, which costs as
    much as parsing a paragraph; here one parser is reused (same rules as rich's) and a
    prototype is copied with the parsed tokens, which halves the cost of each answer shown.
    """
    rendered = copy.copy(_prototype())
    rendered.markup = text
    rendered.parsed = markdown_parser(untrusted_html=False).parse(text)
    return rendered


@lru_cache(maxsize=1)
def _prototype() -> Any:
    from rich.markdown import Heading, Markdown

    class _Heading(Heading):
        LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")

    class _Markdown(Markdown):
        elements = {**Markdown.elements, "heading_open": _Heading}  # noqa: RUF012

    return _Markdown("", code_theme="monokai", hyperlinks=False)
