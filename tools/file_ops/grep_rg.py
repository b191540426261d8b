"""The ripgrep grep backend: one rg run, output parsed into per-file results."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from tools.file_ops import ripgrep
from tools.file_ops.grep_types import NEWLINE_ERROR, FileResult, PatternError, Query, count_matching
from tools.file_ops.walk import Scope

_BINARY_WARNING = b": WARNING: stopped searching binary file"


def search_scope(rg: str, scope: Scope, query: Query, cancel: threading.Event | None) -> list[FileResult]:
    with ripgrep.scope_args(scope) as flags:
        args = [rg, *_mode_args(query), *flags]
        args += ripgrep.name_filter(query.rg_names)
        args += ["-e", query.pattern, "--", *ripgrep.search_paths(scope)]
        rc, out, err = ripgrep.run(args, scope.base, cancel)
    results = _parse(out, query)
    if query.accept is not None:
        cut = len(scope.start) + 1 if scope.start else 0
        results = [r for r in results if query.accept(os.fsdecode(r.path)[cut:])]
    _check(rc, err, bool(results))
    return results


def search_file(
    rg: str, base: Path, rel: str, query: Query, cancel: threading.Event | None
) -> FileResult | None:
    """Search one file given explicitly (ignore rules do not apply to it)."""
    args = [rg, *_mode_args(query), "--no-config", "--color=never", "-e", query.pattern, "--", rel]
    rc, out, err = ripgrep.run(args, base, cancel)
    results = _parse(out, query)
    _check(rc, err, bool(results))
    return results[0] if results else None


def _mode_args(query: Query) -> list[str]:
    if query.mode == "content":
        args = ["--line-number", "--no-heading", "--with-filename", "--null"]
        if query.context:
            args += ["--context", str(query.context)]
    else:
        # --count (not --files-with-matches) for both count modes: -l stops at the first match and
        # would list files that turn out to be binary further down; -c skips them, like the fallback.
        args = ["--count", "--with-filename", "--null"]
    if query.case_insensitive:
        args.append("--ignore-case")
    else:
        args.append("--case-sensitive")
    return args


def _parse(out: bytes, query: Query) -> list[FileResult]:
    if query.mode != "content":
        results = []
        for line in out.split(b"\n"):
            path, sep, count = line.partition(b"\0")
            if sep and count.isdigit():
                results.append(FileResult(path, int(count)))
        results.sort(key=lambda r: r.path)
        return results
    groups: dict[bytes, list[bytes]] = {}
    binary: set[bytes] = set()
    for line in out.split(b"\n"):
        path, sep, rest = line.partition(b"\0")
        if sep:
            records = groups.get(path)
            if records is None:
                groups[path] = records = []
            records.append(rest)
        elif _BINARY_WARNING in line:
            # rg found a NUL byte after printing matches; the fallback skips such files entirely.
            binary.add(line.split(_BINARY_WARNING, 1)[0])
    results = []
    for path in sorted(groups):
        if path in binary:
            continue
        records = groups[path]
        count = count_matching(records) if query.context else len(records)
        results.append(FileResult(path, count, records))
    return results


def _check(rc: int, err: bytes, have_results: bool) -> None:
    """Turn rg's exit status into an exception when the search itself failed."""
    if rc in (0, 1):
        return
    message = err.decode("utf-8", "replace").strip()
    if 'literal "\\n" is not allowed' in message:
        raise PatternError(NEWLINE_ERROR)
    if "regex" in message:
        raise PatternError(_clean(message))
    if not have_results and message:
        raise RuntimeError(f"ripgrep failed: {message[:500]}")


def _clean(message: str) -> str:
    lines = [ln for ln in message.splitlines() if ln.strip()]
    return "Invalid regex (ripgrep / Rust syntax): " + "\n".join(ln.removeprefix("rg: ") for ln in lines[:6])
