"""Resolving paths the model gives against the workspace root.

The one place that decides whether a path is inside the workspace.  Every
check is made on the *real* path (``..`` collapsed, every symlink in the file
and its parents followed), and containment is judged component by component so
``/srv/repo-evil`` is never inside ``/srv/repo``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cairn.tools.file_ops.names import escape_text, has_escape, unescape_name


@dataclass(frozen=True)
class ResolvedPath:
    """A model-given path after resolution."""

    given: str
    path: Path  # real, absolute path (symlinks followed as far as they exist)
    inside: bool  # True when ``path`` is the workspace root or below it

    @property
    def exists(self) -> bool:
        return self.path.exists()


class Workspace:
    """A workspace root and the path rules that go with it."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        expanded = os.path.expanduser(os.fspath(root))
        self.root = Path(os.path.realpath(os.path.abspath(expanded)))

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Workspace) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    def resolve(
        self, given: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None
    ) -> ResolvedPath:
        """Resolve ``given`` (relative to ``cwd`` or the root, absolute, or ``~``-prefixed).

        A name shown with byte escapes (``bad\\xff.txt``, see :mod:`cairn.tools.file_ops.names`)
        finds the file whose name has that byte when no file has the name as written (a new
        file is named as written, unless only the escaped form names its directory).
        """
        text = os.fspath(given)
        real = self._real(text, cwd)
        if has_escape(text) and not os.path.lexists(real):
            raw = self._real(unescape_name(text), cwd)
            if os.path.lexists(raw) or (raw.parent.is_dir() and not real.parent.is_dir()):
                real = raw
        return ResolvedPath(given=text, path=real, inside=self.contains(real))

    def _real(self, text: str, cwd: str | os.PathLike[str] | None) -> Path:
        expanded = os.path.expanduser(text)
        base = Path(cwd) if cwd is not None else self.root
        joined = expanded if os.path.isabs(expanded) else os.path.join(base, expanded)
        return Path(os.path.realpath(joined))

    def contains(self, path: str | os.PathLike[str]) -> bool:
        """Whether the real path of ``path`` is the root or below it."""
        real = Path(os.path.realpath(os.path.expanduser(os.fspath(path))))
        return real == self.root or real.is_relative_to(self.root)

    def display(self, path: str | os.PathLike[str]) -> str:
        """A short form for people: relative inside the workspace, absolute outside; bytes that
        are not UTF-8 shown as ``\\xff`` escapes."""
        p = Path(path)
        try:
            rel = p.relative_to(self.root)
        except ValueError:
            return escape_text(str(p))
        return escape_text(str(rel)) or "."
