"""Listing the files of a scope with their mtime and size: ripgrep's walk or the Python one.

With ripgrep, its output is read as it streams and handed in batches to two threads that
``stat`` the accepted files while rg is still walking, so the stat calls overlap rg's work
(``lstat`` releases the GIL).
A file-name glob is pre-filtered with ``rg -g`` when that cannot bring back
ignored files (see :mod:`cairn.tools.file_ops.name_prefilter`), else with a file type.
With the session's stat cache (:mod:`cairn.tools.file_ops.stat_cache`), files whose time and
size it vouches for are not stat-ed; the others are handed to it to learn.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from cairn.tools.file_ops import ripgrep
from cairn.tools.file_ops.globs import compile_glob
from cairn.tools.file_ops.ignore import IgnoreFile
from cairn.tools.file_ops.name_prefilter import may_reinclude
from cairn.tools.file_ops.stat_cache import MAX_FILES, StatCache, StatView
from cairn.tools.file_ops.walk import Scope, iter_files, make_scope

#: (-mtime_ns, base-relative path, size): a plain ``sort()`` puts the newest first, ties by path.
Entry = tuple[int, str, int]


@dataclass
class Listing:
    entries: list[Entry]
    backend: str  # "ripgrep" or "python"
    prefilter: str = ""  # how rg filtered names: "glob", "type" or "" (none)
    stat_cache: StatView | None = None

    def learn_later(self) -> None:
        """Have the stat cache learn, in a background thread, the files this listing stat-ed
        itself; call it once the result is out (the learning then does not slow it down)."""
        if self.stat_cache is not None:
            self.stat_cache.learn_later()


def list_files(
    scope: Scope,
    accept: Callable[[str], bool] | None,
    *,
    name_glob: str | None = None,
    cancel: threading.Event | None = None,
    use_rg: bool = True,
    stat_cache: StatCache | None = None,
) -> Listing:
    """Files under the scope whose path relative to the search root passes ``accept``.

    ``name_glob`` is an optional file-name glob ripgrep may pre-filter with (it
    must select a superset of what ``accept`` takes). ``accept=None`` takes every
    file, or exactly the files ``name_glob`` matches (at any depth).  ``accept`` may be
    called from several threads at once.  ``stat_cache`` (the session's) spares stat-ing
    files unchanged since an earlier listing.
    """
    cache = stat_cache.view(scope.base) if stat_cache is not None else None
    rg = ripgrep.rg_path() if use_rg else None
    if rg is None:
        if accept is None:
            name_rx = compile_glob(name_glob) if name_glob else None
            rels = (
                r for r in iter_files(scope) if name_rx is None or name_rx.fullmatch(r.rpartition("/")[2])
            )
        else:
            rels = (r for r in iter_files(scope) if accept(scope.from_start(r)))
        return Listing(_stat_all(scope, rels, cache), "python", stat_cache=cache)
    entries, prefilter = _list_rg(rg, scope, accept, name_glob, cancel, cache)
    return Listing(entries, "ripgrep", prefilter, cache)


def warm_stat_cache(root: Path, cache: StatCache) -> None:
    """Have ``cache`` learn, in its background thread, every file a listing of the workspace
    ``root`` shows (a session's warm-up: its first glob then finds them known). Needs ripgrep."""
    rg = ripgrep.rg_path()
    if rg is None:
        return

    def list_workspace() -> tuple[Path, list[bytes]]:
        scope = make_scope(root, root)
        return scope.base, _listed_names(rg, scope, MAX_FILES, stop=lambda: cache.closed)

    cache.learn_in_background(list_workspace)


def _listed_names(rg: str, scope: Scope, limit: int, stop: Callable[[], bool]) -> list[bytes]:
    """Base-relative names ``rg --files`` lists, at most ``limit``; rg is stopped there, or as
    soon as ``stop()`` is true (the session closed: nothing is to be learnt any more)."""
    names: list[bytes] = []
    with ripgrep.scope_args(scope) as flags:
        proc = _start_rg([rg, "--files", "--null", *flags, "--", *ripgrep.search_paths(scope)], scope)
        try:
            for _, listed in _read_names(proc):
                if stop():
                    break
                names += listed
                if len(names) >= limit:
                    break
        finally:
            _stop_rg(proc)
    return names[:limit]


def _start_rg(args: list[str], scope: Scope) -> subprocess.Popen[bytes]:
    """rg started in the scope's base, its output on a pipe (its warnings are not the user's)."""
    return subprocess.Popen(
        args, cwd=scope.base, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )


def _read_names(proc: subprocess.Popen[bytes]) -> Iterator[tuple[bytes, list[bytes]]]:
    """rg's NUL-separated output as it streams: each read, and the whole names it completes
    (a name may straddle two reads)."""
    assert proc.stdout is not None
    fd, rest = proc.stdout.fileno(), b""
    while chunk := os.read(fd, READ_BYTES):
        data = rest + chunk
        names = data.split(b"\0")
        rest = names.pop()
        yield data, names


def _stop_rg(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    assert proc.stdout is not None
    proc.stdout.close()
    proc.wait()


def _stat_all(scope: Scope, rels: Iterable[str], cache: StatView | None) -> list[Entry]:
    stat = _Stat(scope, None, cache)
    try:
        return stat.batch([os.fsencode(rel) for rel in rels])
    finally:
        stat.close()


def _list_rg(
    rg: str,
    scope: Scope,
    accept: Callable[[str], bool] | None,
    name_glob: str | None,
    cancel: threading.Event | None,
    cache: StatView | None,
) -> tuple[list[Entry], str]:
    if not name_glob or name_glob == "*":
        return _run_rg(rg, scope, accept, None, (), [], cancel, cache), ""
    if scope.include_ignored:
        return _run_rg(rg, scope, accept, None, (name_glob,), [], cancel, cache), "glob"
    # Fast path: -g NAME (see name_prefilter), also listing the .gitignore files rg walked past.
    name_rx = compile_glob(name_glob)
    gitignores: list[str] = []
    entries = _run_rg(rg, scope, accept, name_rx, (name_glob, ".gitignore"), gitignores, cancel, cache)
    rules = list(scope.parents)
    for rel in gitignores:
        dir_rel = rel.rpartition("/")[0]
        ig = IgnoreFile.load(scope.base / rel, dir_rel=dir_rel, source=rel)
        if ig is not None:
            rules.append(ig)
    if not may_reinclude(rules, name_glob):
        return entries, "glob"
    return _run_rg(rg, scope, accept, None, (), [], cancel, cache, type_glob=name_glob), "type"


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


#: Names handed to a stat worker at a time: small enough that the workers start while rg walks.
STAT_BATCH = 500
#: Threads stat-ing files: ``lstat`` releases the GIL, so two overlap each other and rg.
STAT_WORKERS = 2
_GITIGNORE = b".gitignore"
#: How much of rg's output is read at a time.
READ_BYTES = 1 << 16


def _run_rg(
    rg: str,
    scope: Scope,
    accept: Callable[[str], bool] | None,
    name_rx: re.Pattern[str] | None,
    whitelist: tuple[str, ...],
    gitignores: list[str],
    cancel: threading.Event | None,
    cache: StatView | None,
    *,
    type_glob: str | None = None,
) -> list[Entry]:
    """One ``rg --files`` run, stat-ing accepted files in worker threads while rg still walks.

    With ``name_rx``, rg was also asked for ``.gitignore`` files (collected into
    ``gitignores``); those are kept only when their name matches ``name_rx`` too.  Every
    other name rg lists matched its ``-g`` name glob, whose meaning ``name_rx`` shares.
    """
    with ripgrep.scope_args(scope, whitelist) as flags:
        args = [rg, "--files", "--null", *flags]
        if type_glob:
            args += ripgrep.name_filter([type_glob])
        args += ["--", *ripgrep.search_paths(scope)]
        proc = _start_rg(args, scope)
        assert proc.stdout is not None
        _widen_pipe(proc.stdout.fileno())
        stat = _Stat(scope, accept, cache)
        try:
            with ThreadPoolExecutor(STAT_WORKERS, thread_name_prefix="cairn-glob-stat") as pool:
                batches = []
                pending: list[bytes] = []
                for data, names in _read_names(proc):
                    if cancel is not None and cancel.is_set():
                        raise ripgrep.Cancelled()
                    if name_rx is not None and _GITIGNORE in data:
                        names = _drop_gitignores(names, name_rx, gitignores)
                    pending += names
                    if len(pending) >= STAT_BATCH:
                        batches.append(pool.submit(stat.batch, pending))
                        pending = []
                batches.append(pool.submit(stat.batch, pending))
                out: list[Entry] = []
                for batch in batches:
                    out += batch.result()
        finally:
            stat.close()
            _stop_rg(proc)
    return out


def _drop_gitignores(names: list[bytes], name_rx: re.Pattern[str], gitignores: list[str]) -> list[bytes]:
    """Collect the ``.gitignore`` files rg listed; keep one only if ``name_rx`` asked for it too."""
    kept = []
    for raw in names:
        if raw.endswith(_GITIGNORE) and raw.rpartition(b"/")[2] == _GITIGNORE:
            gitignores.append(os.fsdecode(raw))
            if name_rx.fullmatch(".gitignore") is None:
                continue
        kept.append(raw)
    return kept


class _Stat:
    """``lstat`` of base-relative names (bytes) into entries, skipping what ``accept`` refuses;
    with a stat cache, files unchanged since an earlier listing are not stat-ed again, and the
    others are noted for it to learn."""

    def __init__(self, scope: Scope, accept: Callable[[str], bool] | None, cache: StatView | None) -> None:
        self.accept = accept
        self.cache = cache
        self.cut = len(scope.start) + 1 if scope.start else 0
        self.at_fd = os.lstat in os.supports_dir_fd  # not on Windows
        self.base_fd = os.open(scope.base, os.O_RDONLY) if self.at_fd else -1
        self.base_bytes = os.fsencode(scope.base) + b"/"

    def batch(self, names: list[bytes]) -> list[Entry]:
        """Entries for ``names``, sorted (so the final sort of all entries merges sorted runs).

        With a cache that knows files, unchanged ones come from it; rg lists a directory's
        files together, so a folder is looked up once per run of them."""
        cache = self.cache
        look_up = cache if cache is not None and cache.knows_files else None
        out: list[Entry] = []
        stated: list[bytes] = []  # for the cache to learn
        lstat, accept, cut = os.lstat, self.accept, self.cut
        base_fd, base_bytes, at_fd = self.base_fd, self.base_bytes, self.at_fd
        encoding = sys.getfilesystemencoding()
        last: bytes | None = None
        known: dict[bytes, tuple[int, int]] | None = None
        for raw in names:
            rel = raw.decode(encoding, "surrogateescape")
            if accept is not None and not accept(rel[cut:]):
                continue
            if look_up is not None:
                folder, _, name = raw.rpartition(b"/")
                if folder != last:
                    last, known = folder, look_up.known_in(folder)
                if known is not None and (hit := known.get(name)) is not None:
                    out.append((hit[0], rel, hit[1]))
                    continue
            try:
                st = lstat(raw, dir_fd=base_fd) if at_fd else lstat(base_bytes + raw)
            except OSError:
                continue
            out.append((-st.st_mtime_ns, rel, st.st_size))
            stated.append(raw)
        if cache is not None:
            cache.note(stated)
        out.sort()
        return out

    def close(self) -> None:
        if self.base_fd >= 0:
            os.close(self.base_fd)
            self.base_fd = -1
