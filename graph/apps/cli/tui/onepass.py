"""A console that renders a whole page in one pass and writes it once (``cairn show``).

``cairn show`` of a long session prints tens of thousands of small ``Text`` lines. Through
``rich.Console.print`` each costs ~50–90 µs (options, terminal size, wrapping into lines,
cropping, one write per print); here a ``Text`` that rich would print unchanged is turned
into the same characters directly: plain text without colors, or the same ANSI codes rich
writes (one segment per span boundary, newlines unstyled, ``Style.render``). Anything else —
Markdown, a line wider than a console that wraps, tabs (rich expands them), extra print
options — is rendered by the real console into the same buffer, in order. ``flush`` writes
everything with one ``write``. The output is byte-for-byte what the real console prints
(``tests/cli/test_onepass.py`` compares them).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import COLOR_SYSTEMS
from rich.style import Style
from rich.text import Text

_NULL = Style.null()


class OnePassConsole:
    """The part of the ``rich.Console`` API the renderer uses, collecting into one buffer."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.is_terminal = console.is_terminal
        self.no_color = console.no_color
        self.encoding = console.encoding
        self.width = console.width
        self.soft_wrap = console.soft_wrap
        system = console.color_system
        self._system = COLOR_SYSTEMS[system] if system else None
        #: Direct rendering needs what ``Console._render_buffer`` would do to be ``Style.render``.
        self._direct = not console.legacy_windows and not (console.no_color and system)
        self._parts: list[str] = []
        self._styles: dict[Any, Style] = {}
        self._combined: dict[tuple[Style, ...], Style] = {}

    def print(self, *objects: Any, end: str = "\n", soft_wrap: bool | None = None, **options: Any) -> None:
        soft = self.soft_wrap if soft_wrap is None else soft_wrap
        if not objects:
            self._parts.append(end)
            return
        if self._direct and not options and len(objects) == 1 and isinstance(objects[0], Text):
            out = self._text(objects[0], end, soft)
            if out is not None:
                self._parts.append(out)
                return
        with self.console.capture() as captured:
            self.console.print(*objects, end=end, soft_wrap=soft_wrap, **options)
        self._parts.append(captured.get())

    def flush(self) -> None:
        """Write what was printed, at once."""
        text, self._parts = "".join(self._parts), []
        if text:
            self.console.file.write(text)
            self.console.file.flush()

    # -- direct rendering --------------------------------------------------------------------
    def _text(self, text: Text, end: str, soft: bool) -> str | None:
        """``text`` as rich prints it, or None when rich would change it (tabs, wrapping)."""
        plain = text.plain
        if "\t" in plain:
            return None
        if not soft and any(cell_len(line) > self.width for line in plain.split("\n")):
            return None
        if self._system is None:  # no colors: the styles render as nothing
            return plain + end
        return self._ansi(text, plain) + end

    def _ansi(self, text: Text, plain: str) -> str:
        # What rich does: the base style becomes the first span; the text is split into lines
        # (spans cut at each newline, newlines themselves unstyled) and joined again; a segment
        # starts at every span boundary and has the combination of the spans over it.
        spans = [(0, len(plain), text.style)] if text.style else []
        spans.extend((s.start, s.end, s.style) for s in text.spans)
        if not spans:
            return plain
        pieces: list[tuple[int, int, int]] = []  # (start, end, span order)
        newlines = [i for i, ch in enumerate(plain) if ch == "\n"] if "\n" in plain else []
        for order, (start, stop, _) in enumerate(spans):
            start, stop = max(start, 0), min(stop, len(plain))
            for a, b in _cut(start, stop, newlines):
                pieces.append((a, b, order))
        if not pieces:
            return plain
        events = sorted(
            [(a, False, o) for a, _, o in pieces]
            + [(b, True, o) for _, b, o in pieces]
            + [(len(plain), True, -1)]
        )
        out: list[str] = []
        system = self._system
        active: list[int] = []
        at = 0
        for offset, leaving, order in events:
            if offset > at:
                chunk = plain[at:offset]
                style = (
                    self._combine(tuple(self._style(spans[o][2]) for o in sorted(active)))
                    if active
                    else _NULL
                )
                out.append(style.render(chunk, color_system=system) if style else chunk)
                at = offset
            if order < 0:
                continue
            if leaving:
                active.remove(order)
            else:
                active.append(order)
        return "".join(out)

    def _style(self, style: Any) -> Style:
        found = self._styles.get(style)
        if found is None:
            found = self._styles[style] = self.console.get_style(style, default=_NULL)
        return found

    def _combine(self, styles: tuple[Style, ...]) -> Style:
        found = self._combined.get(styles)
        if found is None:
            found = self._combined[styles] = Style.combine((_NULL, *styles))
        return found


def _cut(start: int, stop: int, newlines: list[int]) -> list[tuple[int, int]]:
    """``[start, stop)`` without the newline positions, as non-empty ranges."""
    out: list[tuple[int, int]] = []
    for nl in newlines:
        if nl >= stop:
            break
        if nl >= start:
            if nl > start:
                out.append((start, nl))
            start = nl + 1
    if stop > start:
        out.append((start, stop))
    return out
