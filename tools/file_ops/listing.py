"""Listing the files of a scope with their mtime and size: ripgrep's walk or the Python one.

With ripgrep, its output is read as it streams and each accepted file is
``stat``-ed while rg is still walking, so the stat calls mostly overlap rg's work.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from tools.file_ops import ripgrep
from tools.file_ops.globs import compile_glob
from tools.file_ops.walk import Scope, iter_files

#: (mtime_ns, size, base-relative path)
Entry = tuple[int, int, str]


@dataclass
class Listing:
    entries: list[Entry]
    backend: str  # "ripgrep" or "python"


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
    return Listing(_list_rg(rg, scope, accept, name_glob, cancel), "ripgrep")


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
) -> list[Entry]:
    out: list[Entry] = []
    with ripgrep.scope_args(scope) as flags:
        args = [rg, "--files", "--null", *flags]
        if name_glob:
            args += ripgrep.name_filter([name_glob])
        args += ["--", *ripgrep.search_paths(scope)]
        proc = subprocess.Popen(args, cwd=scope.base, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert proc.stdout is not None
        base_fd = os.open(scope.base, os.O_RDONLY)
        try:
            fd = proc.stdout.fileno()
            rest = b""
            cut = len(scope.start) + 1 if scope.start else 0
            encoding = sys.getfilesystemencoding()
            lstat = os.lstat
            while chunk := os.read(fd, 1 << 16):
                if cancel is not None and cancel.is_set():
                    proc.kill()
                    raise ripgrep.Cancelled()
                names = (rest + chunk).split(b"\0")
                rest = names.pop()
                for raw in names:
                    rel = raw.decode(encoding, "surrogateescape")
                    if accept is not None and not accept(rel[cut:]):
                        continue
                    try:
                        st = lstat(raw, dir_fd=base_fd)
                    except OSError:
                        continue
                    out.append((st.st_mtime_ns, st.st_size, rel))
        finally:
            os.close(base_fd)
            proc.stdout.close()
            proc.wait()
    return out
