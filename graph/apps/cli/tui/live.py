"""The live region under the transcript: the block being written, running tools, a spinner.

One ``rich.live.Live`` shows all three, redrawn four times a second, so the elapsed seconds on
the spinner (``thinking  3s``) and on each running tool (``● bash npm test  12s``) advance on
their own. Every line is cut to the terminal width: a line that wraps cannot be redrawn in
place. The view reads a snapshot of the state under a short lock that is never held while
printing, so the refresh thread and the run's thread cannot deadlock.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.tui import fmt

#: Redraws per second (the timers need at least one).
REFRESH_PER_SECOND = 4
#: Lines of the block being written shown live (its end, rendered); the whole block prints when
#: it closes.
DRAFT_LINES = 8


@dataclass
class Running:
    label: str
    started: float = field(default_factory=time.monotonic)
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=6))


def elapsed(started: float, now: float | None = None) -> str:
    seconds = int((now if now is not None else time.monotonic()) - started)
    return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m {seconds % 60:02d}s"


def cut(text: Text, width: int) -> Text:
    """One terminal line: ``text`` without newlines, cut to ``width`` with an ellipsis."""
    line = text.copy()
    line.truncate(max(1, width), overflow="ellipsis")
    return line


class LiveState:
    """What the live region shows; mutated by the run's thread, read by the refresh thread."""

    def __init__(self, *, tail_lines: int = 1, unicode: bool = True) -> None:
        self.lock = threading.Lock()
        self.tail_lines = tail_lines
        self.unicode = unicode
        self.draft = ""
        self.running: dict[str, Running] = {}
        self.waiting: tuple[str, float] | None = None

    def empty(self) -> bool:
        with self.lock:
            return not (self.draft or self.running or self.waiting)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        width = options.max_width
        now = time.monotonic()
        with self.lock:
            draft, running, waiting = self.draft, list(self.running.values()), self.waiting
            tails = [list(r.tail)[-self.tail_lines :] for r in running]
        if draft:  # rendered too (no ## or ** flashing by), only its last lines
            from rich.segment import Segment

            from cairn.graph.apps.cli.tui.mdstream import markdown

            rendered = console.render_lines(
                markdown(fmt.visible(draft)), options.update(height=None), pad=False
            )
            for segments in rendered[-DRAFT_LINES:]:
                yield from segments
                yield Segment.line()
        dot = "●" if self.unicode else "*"
        for run, tail in zip(running, tails, strict=True):
            line = Text("  ")
            line.append(f"{dot} ", style="cyan")
            line.append(fmt.one_line(run.label, 400), style="bold")
            line.append(f"  {elapsed(run.started, now)}", style="cyan")
            line.append("  (Ctrl-C stops it)", style="dim")
            yield cut(line, width)
            for out in tail:
                yield cut(Text("    " + fmt.one_line(out, 400), style="dim"), width)
        if waiting is not None:
            label, started = waiting
            frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" if self.unicode else "-\\|/"
            frame = frames[int(now * 10) % len(frames)]
            line = Text(f"{frame} ", style="cyan")
            line.append(label, style="dim")
            line.append(f"  {elapsed(started, now)}", style="dim")
            yield cut(line, width)
