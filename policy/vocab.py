"""A tiny helper for the long word lists of the command and path tables."""

from __future__ import annotations

__all__ = ["words"]


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of ``text`` as a frozenset (keeps the tables readable)."""
    return frozenset(text.split())
