"""Gitignore rules, evaluated the way git and ripgrep evaluate them.

Each ``.gitignore`` is compiled once into an :class:`IgnoreFile`.  A path is
checked against the files of its directory and every ancestor, deepest first;
inside a file the last matching line wins; a ``!`` line re-includes.  Walkers
prune ignored directories, so (as in git) nothing below an ignored directory
can be re-included.

Why not ``pathspec.GitIgnoreSpec``: it answers "is this file path ignored" by
prefix-matching parent directories and its own priority rules, and on a pruning
walk it disagrees with git and ripgrep -- e.g. with ``*`` / ``!*/`` it calls every
directory ignored, and with ``build/`` / ``!build/keep/`` it re-includes files git
cannot.  The grep fallback must give ripgrep's results exactly, so the patterns
are compiled here with git's wildmatch rules (see :mod:`cairn.tools.file_ops.globs`).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cairn.tools.file_ops.globs import translate

#: Directories skipped by default (like ripgrep's ``-g '!name/'``), and ``.git`` files/dirs always.
DEFAULT_EXCLUDED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "dist", "build"})
DEFAULT_EXCLUDED_SUFFIXES = (".pyc",)
DEFAULT_EXCLUDES_LABEL = "default excludes (.git, node_modules, __pycache__, .venv, dist, build, *.pyc)"


def default_excluded(name: str, is_dir: bool) -> bool:
    if name == ".git":
        return True
    if is_dir and name in DEFAULT_EXCLUDED_DIRS:
        return True
    return name.endswith(DEFAULT_EXCLUDED_SUFFIXES)


@dataclass(frozen=True)
class IgnorePattern:
    line: int  # 1-based line in its file
    text: str  # the line as written
    negated: bool
    dir_only: bool
    anchored: bool  # has a "/": matched against the relative path, else against the name
    regex: re.Pattern[str]  # fullmatch
    glob: str = ""  # the glob itself: no "!", no leading or trailing "/"

    def matches(self, rel: str, name: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        return self.regex.fullmatch(rel if self.anchored else name) is not None


def parse_line(text: str, line: int) -> IgnorePattern | None:
    """Compile one ``.gitignore`` line; ``None`` for blanks and comments."""
    body = text
    if body.startswith("#"):
        return None
    while body.endswith(" ") and not body.endswith("\\ "):
        body = body[:-1]
    negated = body.startswith("!")
    if negated:
        body = body[1:]
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    if not body:
        return None
    anchored = "/" in body
    if body.startswith("/"):
        body = body[1:]
    regex = re.compile(translate(body, braces=False), re.DOTALL)
    return IgnorePattern(line, text, negated, dir_only, anchored, regex, body)


def _combined(patterns: list[IgnorePattern]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{p.regex.pattern})" for p in patterns), re.DOTALL)


class IgnoreFile:
    """The compiled lines of one ``.gitignore``."""

    def __init__(self, lines: list[str], *, dir_rel: str, source: str) -> None:
        self.dir_rel = dir_rel  # directory the patterns are relative to, "" for the base
        self.source = source  # shown in explanations, e.g. "src/.gitignore"
        self.patterns = [p for i, t in enumerate(lines, 1) if (p := parse_line(t, i)) is not None]
        # Two combined regexes (names, paths) reject most entries with one or two calls.
        self._any_name = _combined([p for p in self.patterns if not p.anchored])
        self._any_path = _combined([p for p in self.patterns if p.anchored])

    @classmethod
    def load(cls, path: str | Path, *, dir_rel: str, source: str) -> IgnoreFile | None:
        # Non-blocking, regular files only: a FIFO named .gitignore must not hang a walk.
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            with open(fd, "rb", closefd=False) as fh:
                text = fh.read().decode("utf-8", "surrogateescape")
        except OSError:
            return None
        finally:
            os.close(fd)
        ig = cls(text.splitlines(), dir_rel=dir_rel, source=source)
        return ig if ig.patterns else None

    def match(self, rel: str, name: str, is_dir: bool) -> IgnorePattern | None:
        """The deciding pattern for ``rel`` (relative to this file's directory), if any."""
        if (self._any_name is None or self._any_name.fullmatch(name) is None) and (
            self._any_path is None or self._any_path.fullmatch(rel) is None
        ):
            return None
        for pattern in reversed(self.patterns):
            if pattern.matches(rel, name, is_dir):
                return pattern
        return None


#: A stack of ignore files from the base down to the current directory.
IgnoreStack = tuple[IgnoreFile, ...]


def decide(stack: IgnoreStack, rel: str, is_dir: bool) -> tuple[IgnoreFile, IgnorePattern] | None:
    """The ignore file and pattern deciding ``rel`` (relative to the base), deepest file first."""
    name = rel.rpartition("/")[2]
    for ig in reversed(stack):
        if ig.dir_rel:
            if not rel.startswith(ig.dir_rel) or rel[len(ig.dir_rel) : len(ig.dir_rel) + 1] != "/":
                continue  # a .gitignore only covers its own directory
            sub = rel[len(ig.dir_rel) + 1 :]
        else:
            sub = rel
        pattern = ig.match(sub, name, is_dir)
        if pattern is not None:
            return ig, pattern
    return None


class QuickReject:
    """Two regexes over a whole stack: when neither matches, no pattern of the stack can match.

    Lets a walker skip :func:`decide` for the vast majority of entries.
    """

    def __init__(self, stack: IgnoreStack) -> None:
        names, paths = [], []
        for ig in stack:
            prefix = re.escape(ig.dir_rel + "/") if ig.dir_rel else ""
            for p in ig.patterns:
                if p.anchored:
                    paths.append(f"{prefix}(?:{p.regex.pattern})")
                else:
                    names.append(f"(?:{p.regex.pattern})")
        self.name = re.compile("|".join(names), re.DOTALL).fullmatch if names else None
        self.path = re.compile("|".join(paths), re.DOTALL).fullmatch if paths else None

    def maybe(self, rel: str, name: str) -> bool:
        return (self.name is not None and self.name(name) is not None) or (
            self.path is not None and self.path(rel) is not None
        )


def is_ignored(stack: IgnoreStack, rel: str, is_dir: bool) -> bool:
    found = decide(stack, rel, is_dir)
    return found is not None and not found[1].negated


def rebase_line(text: str, dir_rel: str) -> str | None:
    """Rewrite a ``.gitignore`` line of directory ``dir_rel`` so it means the same relative to
    the base (for ripgrep's ``--ignore-file``, whose patterns are relative to its cwd)."""
    if not dir_rel:
        return text
    if parse_line(text, 1) is None:
        return None
    negated = text.startswith("!")
    body = text[1:] if negated else text
    while body.endswith(" ") and not body.endswith("\\ "):
        body = body[:-1]
    anchored = "/" in body.rstrip("/")
    body = body.lstrip("/") if anchored else "**/" + body
    return ("!" if negated else "") + "/" + dir_rel + "/" + body
