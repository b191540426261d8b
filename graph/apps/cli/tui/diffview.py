"""Colored unified diffs (green additions, red removals, cyan hunks); plain without colors."""

from __future__ import annotations

from rich.text import Text

from cairn.graph.apps.cli.tui.fmt import visible


def _style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("@@"):
        return "cyan"
    return "dim"


def diff_text(lines: list[str], *, indent: str = "") -> Text:
    out = Text()
    for index, line in enumerate(lines):
        if index:
            out.append("\n")
        out.append(indent + visible(line), style=_style(line))
    return out
