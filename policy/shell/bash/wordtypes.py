"""Types and constants shared by word expansion (``words``) and parameter operators (``params``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["MAX_BRACE", "MAX_CANDIDATES", "UNKNOWN", "Env", "SubstEval", "WordExp", "capped"]

UNKNOWN = "\x00unknown\x00"
MAX_CANDIDATES = 8
MAX_BRACE = 64  # words one brace expression may produce before the rest counts as unknown
Env = Mapping[str, Sequence[str]]
SubstEval = Callable[[str], "str | None"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set("@*#?$!-_0123456789")


def capped(values: list[str], limit: int = MAX_CANDIDATES) -> list[str]:
    """At most ``limit`` candidates; when some were dropped the last one is :data:`UNKNOWN`, so
    what the policy did not check counts as unknown (and asks) instead of vanishing."""
    if len(values) <= limit:
        return list(values)
    return [*values[: limit - 1], UNKNOWN]


@dataclass
class _Piece:
    text: str
    split: bool  # unquoted expansion result: subject to word splitting


@dataclass
class WordExp:
    """The candidate expansions of one word, each a list of fields."""

    values: list[list[str]] = field(default_factory=list)
    dynamic: bool = False  # parameter or command substitution involved
    unknown: bool = False  # some part could not be known
    glob: bool = False  # unquoted glob characters
    subst: bool = False  # command substitution involved
    quoted: bool = False  # quotes or backslashes in the raw text
    indirect: bool = False  # ${!name} indirection
    evaluates: str = ""  # why expanding this word runs code (${x@P}, ${!x} with an unknown name)
