"""The program records: one per program the shell classifier knows, in one module per family.

``records()`` returns every record (:class:`Program`: ``.name``, ``.category``, ``.options``,
``.examples`` and the rest, see :mod:`cairn.policy.shell.programs.record`); ``record(name)`` one
of them.  The option tables the classifier uses (which options run without asking, which take a
value, which programs' operands are files they read) are derived from these records, so each
fact is stated once; ``tests/policy/test_programs.py`` checks every record's examples.
"""

from __future__ import annotations

import dataclasses
import functools

from cairn.policy.shell.programs import (
    archives,
    build,
    coded,
    interpreters,
    listers,
    network,
    readers,
    search,
    shell_words,
    text,
    wrappers,
    writers,
)
from cairn.policy.shell.programs.record import Option, Program

__all__ = ["Option", "Program", "known", "record", "records"]

_FAMILIES = (readers, listers, search, text, archives, coded, writers, wrappers, network, interpreters)
_FAMILIES += (shell_words, build)


@functools.cache
def _by_name() -> dict[str, Program]:
    out: dict[str, Program] = {}
    for family in _FAMILIES:
        module = family.__name__.rsplit(".", 1)[-1]
        category = getattr(family, "FAMILY", "")
        for item in family.RECORDS:
            if item.name in out:
                raise ValueError(f"two records for {item.name}")
            out[item.name] = dataclasses.replace(
                item, category=item.category or category, module=item.module or module
            )
    return out


def records() -> list[Program]:
    """Every program record, sorted by name."""
    return sorted(_by_name().values(), key=lambda p: p.name)


def record(name: str) -> Program | None:
    """The record of ``name``, or ``None`` when the classifier has none (it then asks)."""
    return _by_name().get(name)


def known(name: str) -> Program:
    """The record of a program whose handler is asking: the record names it, so it exists."""
    return _by_name()[name]
