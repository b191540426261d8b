"""Documented names a ``Session`` keeps for members that live on its collaborators.

``redo = Alias("rewinds.redo")`` makes ``session.redo(...)`` call ``session.rewinds.redo(...)``;
the Session's member count (``tests/graph/test_session_facade.py``) leaves aliases aside.
"""

from __future__ import annotations

from typing import Any


class Alias:
    """A read-only (or, with ``settable``, read-write) name for ``<collaborator>.<member>``."""

    def __init__(self, target: str, *, settable: bool = False) -> None:
        self.target = target
        self.settable = settable
        self.name = target
        self.__doc__ = f"Alias of ``session.{target}``."

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj
        for part in self.target.split("."):
            value = getattr(value, part)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        if not self.settable:
            raise AttributeError(f"{self.name} is read-only (an alias of session.{self.target})")
        *path, last = self.target.split(".")
        holder = obj
        for part in path:
            holder = getattr(holder, part)
        setattr(holder, last, value)


def aliases(cls: type) -> frozenset[str]:
    """The names ``cls`` defines (or inherits) as aliases."""
    return frozenset(
        name for klass in cls.__mro__ for name, value in vars(klass).items() if isinstance(value, Alias)
    )
