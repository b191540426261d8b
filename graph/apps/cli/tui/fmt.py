"""Pure text helpers for people: short argument summaries, sizes, durations, symbols."""

from __future__ import annotations

import re
import time
from typing import Any

from cairn.graph.core.call_args import call_about

#: Characters that can hide or disguise what a person approves: C0/C1 controls (ESC starts
#: terminal sequences that can erase or recolor a line), bidi overrides, zero-width marks.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)

#: How each lifecycle status looks: (symbol, ascii fallback, style).
STATUS_LOOK = {
    "success": ("✓", "+", "green"),
    "error": ("✗", "x", "red"),
    "failed": ("✗", "x", "red"),  # a command that ran and exited non-zero
    "cancelled": ("–", "-", "yellow"),
    "denied": ("×", "x", "red"),
    "rejected": ("×", "x", "yellow"),
    "interrupted": ("■", "!", "yellow"),
    "awaiting_approval": ("?", "?", "yellow"),
    "executing": ("●", "*", "cyan"),
    "pending": ("·", ".", "dim"),
}
RISK_STYLE = {"LOW": "green", "MEDIUM": "yellow", "HIGH": "bold red"}


def symbol(status: str, unicode: bool = True) -> tuple[str, str]:
    sym, ascii_sym, style = STATUS_LOOK.get(status, ("·", ".", "dim"))
    return (sym if unicode else ascii_sym), style


def visible(text: str) -> str:
    """``text`` with invisible and terminal-control characters shown as escapes (``\\x1b``).

    Everything a person reads (commands to approve, outputs, model text) goes through this,
    so a command cannot repaint the terminal to look like something else.
    """
    text = str(text).replace("\r\n", "\n")
    return _INVISIBLE.sub(lambda m: _escape(m.group()), text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str, limit: int = 100) -> str:
    flat = " ".join(visible(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_args(tool_name: str, args: dict[str, Any], limit: int = 80) -> str:
    """What a call is about in a few words (``call_about``), on one line, safe for a terminal."""
    return one_line(call_about(tool_name, args), limit)


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    for unit in ("KB", "MB", "GB"):
        size /= 1024
        if size < 1024 or unit == "GB":
            return f"{size:.1f} {unit}"
    return f"{size} B"  # pragma: no cover


def size_note(text: str) -> str:
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return f"{lines} line{'s' if lines != 1 else ''}, {human_size(len(text.encode('utf-8', 'replace')))}"


def usage_line(usage: dict[str, Any], elapsed_s: float) -> str:
    parts = [f"{usage.get('input_tokens', 0):,} in", f"{usage.get('output_tokens', 0):,} out"]
    calls = usage.get("model_calls", 0)
    if calls:
        parts.append(f"{calls} model call{'s' if calls != 1 else ''}")
    from cairn.graph.core.cost.report import cost_text  # issue 34 hook-in: the run's cost

    cost = cost_text(usage)
    if cost is not None:
        parts.append(cost)
    parts.append(f"{elapsed_s:.1f} s")
    return " · ".join(parts)


def ago(timestamp: float, now: float | None = None) -> str:
    seconds = max(0, int((now or time.time()) - timestamp))
    if seconds < 60:
        return f"{seconds}s ago"
    if seconds < 3600:
        return f"{seconds // 60}m ago"
    if seconds < 86400:
        return f"{seconds // 3600}h ago"
    if seconds < 7 * 86400:
        return f"{seconds // 86400}d ago"
    return time.strftime("%Y-%m-%d", time.localtime(timestamp))


class BlankLines:
    """Streamed text with each run of blank lines cut to one, outside code fences (where blank
    lines belong to the code).  Text is passed on as it comes; only the whitespace of a line
    that may turn out blank is held back until the line says what it is."""

    def __init__(self) -> None:
        self._line = ""  # the current line's text so far
        self._held = ""  # its leading whitespace, not passed on yet
        self._blank = 0  # blank lines passed on since the last line with text
        self._fence = False

    def feed(self, text: str) -> str:
        out: list[str] = []
        for part in re.split(r"(\n)", text):
            if part == "\n":
                if self._line.strip() or self._fence:
                    out.append(self._held + "\n")
                    self._blank = 0
                elif self._blank == 0:
                    out.append("\n")
                    self._blank = 1
                if self._line.lstrip().startswith(("```", "~~~")):
                    self._fence = not self._fence
                self._line = self._held = ""
            elif part:
                if not self._line.strip():
                    stripped = part.lstrip(" \t")
                    self._held += part[: len(part) - len(stripped)]
                    if stripped:
                        out.append(self._held + stripped)
                        self._held = ""
                else:
                    out.append(part)
                self._line += part
        return "".join(out)


def squeeze_blank_lines(text: str) -> str:
    """``text`` with each run of blank lines outside code fences cut to one."""
    return BlankLines().feed(text)
