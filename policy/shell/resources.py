"""Commands that exhaust memory: a program that holds all of its input, fed an endless device.

``sort /dev/zero``, ``tail < /dev/urandom``, ``cat /dev/zero | sort`` and ``yes | sort`` never
finish and grow until the machine runs out of memory; they are refused in every mode.  A stage
that cuts the stream (``head -c 16 /dev/urandom``) is bounded.
"""

from __future__ import annotations

import os

from cairn.policy.vocab import words

__all__ = ["ENDLESS_DEVICES", "HOLDS_ALL", "bounded", "reads_endless"]

ENDLESS_DEVICES = words("/dev/zero /dev/urandom /dev/random /dev/full")
#: Programs that keep all of their input (or all of one line; endless devices have no newline
#: worth counting on) before they finish.
HOLDS_ALL = words(
    """sort tac tail shuf uniq grep egrep fgrep rg sed gsed awk gawk mawk nawk jq yq gojq column
    rev less more xargs fold fmt nl paste join comm cut diff cmp look"""
)


def reads_endless(words_read: list[str], stdin_file: str | None) -> bool:
    """Whether a command's file operands or its ``<`` redirection name an endless device."""
    names = [*words_read, *([stdin_file] if stdin_file else [])]
    return any(os.path.normpath(n) in ENDLESS_DEVICES for n in names if n)


def bounded(name: str, args: list[str]) -> bool:
    """Whether the command stops after a fixed amount of input (``head``, ``dd count=``)."""
    return name == "head" or (name == "dd" and any(a.startswith("count=") for a in args))
