"""What the terminal can do: TTY or not, colors (``NO_COLOR``), width; the rich consoles."""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def colors_enabled(stream: TextIO) -> bool:
    """Colors only on a TTY, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    return is_tty(stream) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def make_console(stream: TextIO | None = None, *, plain: bool = False) -> Any:
    """A rich Console: styled and live on a TTY, plain text otherwise.

    ``plain`` (``--plain``) keeps a TTY's live timers but prints text as written: no colors,
    no rendered Markdown (the renderer renders Markdown only on a console with colors).
    """
    from rich.console import Console

    stream = stream or sys.stdout
    tty = is_tty(stream)
    color = colors_enabled(stream) and not plain
    return Console(
        file=stream,
        force_terminal=tty,
        no_color=not color,
        color_system="auto" if color else None,
        highlight=False,
        emoji=False,
        soft_wrap=not tty,
        width=None if tty else 120,
    )
