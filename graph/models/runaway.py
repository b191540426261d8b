"""Replies that repeat the prompt instead of answering it, caught while they stream.

Small models (Qwen2.5-Coder-1.5B on llama.cpp) sometimes answer by copying what they were given:
the ``<session-context>`` block, the tool schemas, the system prompt's sentences, over and over
until a client timeout (issue 31).  ``EchoGuard`` watches the text as it arrives and names the
echo as soon as it is certain; ``reasoning`` then abandons the stream, tells the model, and asks
once more.

What counts: cairn's own ``<session-context>`` tag (no answer needs it); tool-schema JSON (a
``"properties"`` object beside ``"description"`` strings, or ``"type": "function"``: a tool *call*
written as JSON text has neither); two sentences of the system prompt or of the tools'
descriptions, word for word.  And a reply that loops on its own text: its last
``LOOP_SPAN`` characters or more are one piece of up to ``LOOP_MAX_PERIOD`` characters repeated
at least ``LOOP_REPEATS`` times, or its last lines are a few lines over and over, numbers aside
(a 1.5B model on two CPU cores wrote the same three tool calls as text, with a growing offset,
for nine minutes and 2,300 tokens, past the task's whole time limit, before the output cap could
end it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from cairn.errors import CairnError

#: The tag that wraps cairn's per-session context (``cairn.graph.core.prompts``).
CONTEXT_TAG = "<session-context>"
_SCHEMA_PATTERNS = (
    re.compile(r'"type"\s*:\s*"function"'),
    re.compile(r'"properties"\s*:\s*\{\s*"[^"]+"\s*:\s*\{[^{}]*"description"\s*:', re.DOTALL),
)
#: Sentences shorter than this are too common to be an echo.
MIN_SENTENCE = 40
#: Distinct prompt sentences a reply must repeat before it is an echo.
SENTENCES_FOR_ECHO = 2
#: A reply whose tail is one piece repeated: at least this many characters ...
LOOP_SPAN = 1_000
#: ... made of a piece of at most this many characters ...
LOOP_MAX_PERIOD = 500
#: ... repeated at least this many times.
LOOP_REPEATS = 4
#: Or: the last this many non-blank lines ...
LOOP_LINES = 16
#: ... are no more than this many distinct lines (digits aside).
LOOP_DISTINCT_LINES = 4
_DIGITS = re.compile(r"\d+")
#: The loop check runs each time the reply has grown by this many characters.
LOOP_CHECK_EVERY = 64


class RunawayReply(CairnError):
    """A reply cut because it repeats the prompt (``reason``), after ``chars`` characters."""

    def __init__(self, reason: str, chars: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.chars = chars


def _normal(text: str) -> str:
    return " ".join(text.split())


def _sentences(text: str) -> Iterable[str]:
    for piece in re.split(r"(?<=[.!?:;])\s+|\n+", text):
        piece = _normal(piece)
        if len(piece) >= MIN_SENTENCE:
            yield piece


class EchoGuard:
    """Watches one reply for the prompt's own text; ``feed`` each streamed piece."""

    def __init__(self, system_text: str = "", tool_schemas: Iterable[dict[str, Any]] = ()) -> None:
        found = set(_sentences(system_text))
        for schema in tool_schemas:
            function = schema.get("function") if isinstance(schema, dict) else None
            if isinstance(function, dict):
                found.update(_sentences(str(function.get("description") or "")))
        self._sentences = sorted(found)
        self._longest = max((len(s) for s in self._sentences), default=0)
        self._text = ""
        self._seen: set[str] = set()
        self._loop_checked = 0

    @classmethod
    def for_request(cls, prompt: list[Any], bound_model: Any) -> EchoGuard:
        """A guard for ``prompt`` (its system message) sent to ``bound_model`` (its tools)."""
        system = next((m for m in prompt if getattr(m, "type", "") == "system"), None)
        text = system.content if system is not None and isinstance(system.content, str) else ""
        tools = (getattr(bound_model, "kwargs", None) or {}).get("tools") or ()
        return cls(text, tools if isinstance(tools, list | tuple) else ())

    def feed(self, piece: str) -> str | None:
        """Add ``piece`` to the reply; why the reply is an echo, or None (not yet)."""
        if not piece:
            return None
        start = max(0, len(self._text) - max(self._longest, 400))
        self._text += piece
        return self._judge(self._text[start:])

    def check(self, text: str) -> str | None:
        """Why a whole reply is an echo, or None."""
        self._text, self._seen, self._loop_checked = "", set(), 0
        return self.feed(text)

    @property
    def chars(self) -> int:
        return len(self._text)

    def text_before_echo(self) -> str:
        """The reply up to where it began to copy the session context or the tool schemas (a
        ``<tools>`` tag from the chat template included); all of it when no such place is found.
        A small model may write a whole call first and then start echoing (issue 31's runs)."""
        text = self._text
        starts = [text.find(CONTEXT_TAG), text.find("<tools>")]
        starts += [m.start() for p in _SCHEMA_PATTERNS for m in [p.search(text)] if m is not None]
        found = [i for i in starts if i >= 0]
        return text[: min(found)] if found else text

    def _judge(self, window: str) -> str | None:
        if CONTEXT_TAG in window:
            return "it repeated the session-context block it was given"
        if any(p.search(window) for p in _SCHEMA_PATTERNS):
            return "it repeated the tool schemas it was given"
        flat = _normal(window)
        self._seen.update(s for s in self._sentences if s in flat)
        if len(self._seen) >= SENTENCES_FOR_ECHO:
            return "it repeated the instructions it was given"
        if len(self._text) - self._loop_checked >= LOOP_CHECK_EVERY:
            self._loop_checked = len(self._text)
            if repeating_tail(self._text) or repeating_lines(self._text):
                return "it repeated the same text over and over"
        return None


def repeating_lines(text: str) -> bool:
    """Are the last ``LOOP_LINES`` non-blank lines at most ``LOOP_DISTINCT_LINES`` lines over
    and over, numbers aside?  The same few tool calls written as text with a growing offset
    (``"offset": 11``, ``32``, ``52`` ...) are not periodic character by character."""
    lines: list[str] = []
    for line in reversed(text[-LOOP_LINES * 400 :].splitlines()[:-1]):  # the last one is unfinished
        if line.strip():
            lines.append(_DIGITS.sub("0", line.strip()))
            if len(lines) == LOOP_LINES:
                break
    if len(lines) < LOOP_LINES or sum(map(len, lines)) < LOOP_SPAN // 2:
        return False
    return len(set(lines)) <= LOOP_DISTINCT_LINES


def repeating_tail(text: str) -> bool:
    """Is the end of ``text`` one piece repeated (``LOOP_*``)?  A period ``p`` holds over the
    last ``n`` characters when they equal themselves shifted by ``p``."""
    if len(text) < LOOP_SPAN:
        return False
    end = text[-16:]
    for period in range(1, LOOP_MAX_PERIOD + 1):
        span = max(LOOP_SPAN, LOOP_REPEATS * period)
        if span > len(text):
            break
        if text[-16 - period : -period] != end:
            continue  # a cheap look first: the last characters one period back
        tail = text[-span:]
        if tail[period:] == tail[:-period] and tail.strip():
            return True
    return False


def runaway_note(reason: str) -> str:
    """What the model is told before it is asked again."""
    return (
        f"Your previous reply was cut off and discarded: {reason} instead of answering. Do not "
        "repeat the instructions, the session context or the tool list. Call one tool to look up "
        "what the request needs (read_file for a file it names; grep or glob to find something), "
        "or answer from what the tools already found."
    )
