"""Where a search runs and which files it sees: the search scope and the pure-Python walk.

The *base* of a search is the git repository root above the search directory
(a directory holding ``.git``), else the workspace root when the search is
inside the workspace, else the search directory itself.  ``.gitignore`` files
from the base down apply; paths are reported relative to the base.  The
ripgrep backends run with the base as their working directory and get the
``.gitignore`` rules of the directories above the search root through one
rebased ``--ignore-file`` (see :func:`parent_ignore_lines`), so both backends
apply the same rules.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cairn.tools.file_ops.ignore import (
    DEFAULT_EXCLUDED_DIRS,
    DEFAULT_EXCLUDED_SUFFIXES,
    IgnoreFile,
    IgnoreStack,
    QuickReject,
    default_excluded,
    is_ignored,
    rebase_line,
)


@dataclass(frozen=True)
class Scope:
    base: Path  # real path; rg's cwd; reported paths are relative to it
    start: str  # search root relative to base, "/"-separated; "" when it is the base
    include_ignored: bool = False
    #: .gitignore files of the directories from the base down to (not including) ``start``;
    #: empty when ignored files are included or the search root itself is an ignored directory.
    parents: IgnoreStack = ()

    def from_start(self, rel: str) -> str:
        """A base-relative path made relative to the search root."""
        return rel[len(self.start) + 1 :] if self.start else rel


def find_base(search_dir: Path, workspace_root: Path) -> Path:
    for candidate in (search_dir, *search_dir.parents):
        if (candidate / ".git").exists():
            return candidate
    if search_dir.is_relative_to(workspace_root):
        return workspace_root
    return search_dir


def make_scope(search_dir: Path, workspace_root: Path, *, include_ignored: bool = False) -> Scope:
    base = find_base(search_dir, workspace_root)
    start = search_dir.relative_to(base).as_posix()
    start = "" if start == "." else start
    if include_ignored or not start:
        return Scope(base, start, include_ignored)
    parts = start.split("/")
    stack: IgnoreStack = ()
    for depth in range(len(parts)):
        dir_rel = "/".join(parts[:depth])
        ig = _load(base, dir_rel)
        if ig is not None:
            stack = (*stack, ig)
        here = "/".join(parts[: depth + 1])
        # An explicitly searched directory is searched even when it is ignored (as ripgrep does
        # for a path given on its command line); the rules above it then do not apply inside.
        if default_excluded(parts[depth], True) or is_ignored(stack, here, True):
            return Scope(base, start, include_ignored)
    return Scope(base, start, include_ignored, stack)


def _load(base: Path, dir_rel: str) -> IgnoreFile | None:
    directory = base / dir_rel if dir_rel else base
    source = f"{dir_rel}/.gitignore" if dir_rel else ".gitignore"
    return IgnoreFile.load(directory / ".gitignore", dir_rel=dir_rel, source=source)


def start_stack(scope: Scope) -> IgnoreStack:
    """The rules that apply to the entries of the search root itself."""
    if scope.include_ignored:
        return ()
    own = _load(scope.base, scope.start)
    return (*scope.parents, own) if own is not None else scope.parents


def parent_ignore_lines(scope: Scope) -> list[str]:
    """The parent rules as one ignore file relative to the base, deeper files last (they win)."""
    lines: list[str] = []
    for ig in scope.parents:
        for pattern in ig.patterns:
            rebased = rebase_line(pattern.text, ig.dir_rel)
            if rebased is not None:
                lines.append(rebased)
    return lines


def iter_files(scope: Scope) -> Iterator[str]:
    """Base-relative paths of the regular files (not symlinks) the scope selects, unordered."""
    base = str(scope.base)
    include = scope.include_ignored
    todo: list[tuple[str, IgnoreStack]] = [(scope.start, scope.parents)]
    quick: dict[IgnoreStack, QuickReject] = {}
    while todo:
        dir_rel, stack = todo.pop()
        try:
            with os.scandir(f"{base}/{dir_rel}" if dir_rel else base) as it:
                entries = list(it)
        except OSError:
            continue
        if not include and any(e.name == ".gitignore" for e in entries):
            ig = _load(scope.base, dir_rel)
            if ig is not None:
                stack = (*stack, ig)
        maybe = None
        if stack:
            if stack not in quick:
                quick[stack] = QuickReject(stack)
            maybe = quick[stack].maybe
        prefix = f"{dir_rel}/" if dir_rel else ""
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = not is_dir and entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if not (is_dir or is_file):
                continue
            rel = prefix + name
            if include:
                if name == ".git":
                    continue
            elif (
                name == ".git"
                or (is_dir and name in DEFAULT_EXCLUDED_DIRS)
                or name.endswith(DEFAULT_EXCLUDED_SUFFIXES)  # inlined default_excluded(): hot loop
                or (maybe is not None and maybe(rel, name) and is_ignored(stack, rel, is_dir))
            ):
                continue
            if is_dir:
                todo.append((rel, stack))
            else:
                yield rel
