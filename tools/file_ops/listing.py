"""Listing the files of a scope with their mtime and size: ripgrep's walk or the Python one.

With ripgrep, its output is read as it streams and each accepted file is
``stat``-ed while rg is still walking, so the stat calls mostly overlap rg's work.
A file-name glob is pre-filtered with ``rg -g`` when that cannot bring back
ignored files (see :mod:`cairn.tools.file_ops.name_prefilter`), else with a file type.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.globs import compile_glob
from cairn.tools.file_ops.ignore import IgnoreFile
from cairn.tools.file_ops.name_prefilter import may_reinclude
from cairn.tools.file_ops.walk import Scope, iter_files

#: (mtime_ns, size, base-relative path)
Entry = tuple[int, int, str]


@dataclass
class Listing:
    entries: list[Entry]
    backend: str  # "ripgrep" or "python"
    prefilter: str = ""  # how rg filtered names: "glob", "type" or "" (none)


def list_files(
    scope: Scope,
    accept: Callable[[str], bool] | None,
    *,
    name_glob: str | None = None,
    cancel: threading.Event | None = None,
    use_rg: bool = True,
) -> Listing:
    """Files under the scope whose path relative to the search root passes ``accept``.

    ``name_glob`` is an optional file-name glob ripgrep may pre-filter with (it
    must select a superset of what ``accept`` takes). ``accept=None`` takes every
    file, or exactly the files ``name_glob`` matches (at any depth).
    """
    rg = ripgrep.rg_path() if use_rg else None
    if rg is None:
        if accept is None:
            name_rx = compile_glob(name_glob) if name_glob else None
            rels = (
                r for r in iter_files(scope) if name_rx is None or name_rx.fullmatch(r.rpartition("/")[2])
            )
        else:
            rels = (r for r in iter_files(scope) if accept(scope.from_start(r)))
        return Listing(_stat_all(scope, rels), "python")
    entries, prefilter = _list_rg(rg, scope, accept, name_glob, cancel)
    return Listing(entries, "ripgrep", prefilter)


def _stat_all(scope: Scope, rels) -> list[Entry]:
    out: list[Entry] = []
    base = str(scope.base)
    for rel in rels:
        try:
            st = os.stat(f"{base}/{rel}", follow_symlinks=False)
        except OSError:
            continue
        out.append((st.st_mtime_ns, st.st_size, rel))
    return out


def _list_rg(
    rg: str,
    scope: Scope,
    accept: Callable[[str], bool] | None,
    name_glob: str | None,
    cancel: threading.Event | None,
) -> tuple[list[Entry], str]:
    if not name_glob or name_glob == "*":
        return _run_rg(rg, scope, accept, None, (), [], cancel), ""
    if scope.include_ignored:
        return _run_rg(rg, scope, accept, None, (name_glob,), [], cancel), "glob"
    # Fast path: -g NAME (see name_prefilter), also listing the .gitignore files rg walked past.
    name_rx = compile_glob(name_glob)
    gitignores: list[str] = []
    entries = _run_rg(rg, scope, accept, name_rx, (name_glob, ".gitignore"), gitignores, cancel)
    rules = list(scope.parents)
    for rel in gitignores:
        dir_rel = rel.rpartition("/")[0]
        ig = IgnoreFile.load(scope.base / rel, dir_rel=dir_rel, source=rel)
        if ig is not None:
            rules.append(ig)
    if not may_reinclude(rules, name_glob):
        return entries, "glob"
    return _run_rg(rg, scope, accept, None, (), [], cancel, type_glob=name_glob), "type"


#: Linux F_SETPIPE_SZ; 1 MiB is the default limit for unprivileged processes.
_F_SETPIPE_SZ = 1031
PIPE_BYTES = 1 << 20


def _widen_pipe(fd: int) -> None:
    """Let rg write ~25,000 paths ahead of us: with the default 64 KiB pipe it waits for every
    ``lstat`` here, so its walk and our stats run one after the other instead of side by side."""
    if not sys.platform.startswith("linux"):
        return
    import fcntl

    try:
        fcntl.fcntl(fd, _F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass


def _run_rg(
    rg: str,
    scope: Scope,
    accept: Callable[[str], bool] | None,
    name_rx: re.Pattern[str] | None,
    whitelist: tuple[str, ...],
    gitignores: list[str],
    cancel: threading.Event | None,
    *,
    type_glob: str | None = None,
) -> list[Entry]:
    """One ``rg --files`` run, stat-ing accepted files while rg is still walking.

    With ``name_rx``, files whose name does not match it are dropped (and ``.gitignore``
    files are collected into ``gitignores``): the whitelist may list more than asked for.
    """
    out: list[Entry] = []
    with ripgrep.scope_args(scope, whitelist) as flags:
        args = [rg, "--files", "--null", *flags]
        if type_glob:
            args += ripgrep.name_filter([type_glob])
        args += ["--", *ripgrep.search_paths(scope)]
        proc = subprocess.Popen(args, cwd=scope.base, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        _widen_pipe(proc.stdout.fileno())
        at_fd = os.lstat in os.supports_dir_fd  # not on Windows
        base_fd = os.open(scope.base, os.O_RDONLY) if at_fd else -1
        try:
            fd = proc.stdout.fileno()
            rest = b""
            cut = len(scope.start) + 1 if scope.start else 0
            encoding = sys.getfilesystemencoding()
            lstat = os.lstat
            base_bytes = os.fsencode(scope.base) + b"/"
            while chunk := os.read(fd, 1 << 16):
                if cancel is not None and cancel.is_set():
                    proc.kill()
                    raise ripgrep.Cancelled()
                names = (rest + chunk).split(b"\0")
                rest = names.pop()
                for raw in names:
                    rel = raw.decode(encoding, "surrogateescape")
                    if name_rx is not None:
                        name = rel.rpartition("/")[2]
                        if name == ".gitignore":
                            gitignores.append(rel)
                        if name_rx.fullmatch(name) is None:
                            continue
                    if accept is not None and not accept(rel[cut:]):
                        continue
                    try:
                        st = lstat(raw, dir_fd=base_fd) if at_fd else lstat(base_bytes + raw)
                    except OSError:
                        continue
                    out.append((st.st_mtime_ns, st.st_size, rel))
        finally:
            if base_fd >= 0:
                os.close(base_fd)
            proc.stdout.close()
            proc.wait()
    return out
