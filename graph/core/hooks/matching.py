"""Which hooks a tool call (or an event's subject) triggers.

A matcher is ``"*"`` or ``""`` (everything), or a regex matched in full against the tool's
cairn name and each of its aliases, so ``Bash|Edit`` (Claude Code's names) and
``bash|edit_file`` both match cairn's ``bash`` and ``edit_file``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from cairn.graph.core.hooks.config import HookSpec


@lru_cache(maxsize=256)
def _pattern(matcher: str) -> re.Pattern[str]:
    return re.compile(matcher)


def matches(matcher: str, names: Iterable[str]) -> bool:
    if matcher in ("", "*"):
        return True
    pattern = _pattern(matcher)
    return any(pattern.fullmatch(name) for name in names if name)


def select(hooks: Iterable[HookSpec], names: Iterable[str]) -> list[HookSpec]:
    """The hooks among ``hooks`` whose matcher matches one of ``names`` (no names: all)."""
    wanted = tuple(names)
    if not wanted:
        return list(hooks)
    return [h for h in hooks if matches(h.matcher, wanted)]


def display_name(name: str, aliases: Iterable[str]) -> str:
    """The name a hook script is told (``tool_name``): Claude Code's when the tool has one
    (``Bash``, ``Edit``, ``Write``, ``Read`` ...: its first capitalised alias), else cairn's."""
    for alias in aliases:
        if alias[:1].isupper() and alias.isalnum():
            return alias
    return name
