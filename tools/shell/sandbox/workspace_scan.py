"""One walk of the workspace before a sandboxed command: its credential files, and its files
hard-linked from outside it.

* credential files: names matching the spec's ``workspace_secrets`` (``fnmatch``, case-folded;
  ``!pattern`` excludes) - hidden from commands a person did not approve;
* hard links: regular files whose link count is greater than the number of their links found
  inside the workspace, so another link lies outside it - bound read-only in
  ``workspace-write`` (writing through one would change the file outside).  Inside the sandbox
  no new such link can be made: ``link()`` across mounts fails with ``EXDEV``.

Directories named in ``scan_skip`` (``.git``, virtualenvs, ``node_modules``, caches) are not
entered, and the walk stops after :data:`MAX_ENTRIES` entries: both are limits, documented (uv
and pnpm hard-link packages from their caches into ``.venv``/``node_modules``).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from dataclasses import dataclass, field

#: The walk stops here (a huge tree must not cost seconds per command).
MAX_ENTRIES = 50_000


@dataclass
class ScanResult:
    secrets: list[str] = field(default_factory=list)
    shared_links: list[str] = field(default_factory=list)
    truncated: bool = False


def scan(
    roots: tuple[str, ...],
    *,
    secret_patterns: tuple[str, ...] = (),
    want_links: bool = False,
    skip: tuple[str, ...] = (),
) -> ScanResult:
    """Walk ``roots`` once; what is asked for (patterns, links) is collected."""
    result = ScanResult()
    if not secret_patterns and not want_links:
        return result
    include = _compile(tuple(p for p in secret_patterns if not p.startswith("!")))
    exclude = _compile(tuple(p[1:] for p in secret_patterns if p.startswith("!")))
    skipped = frozenset(skip)
    linked: dict[tuple[int, int], list[str]] = {}
    nlinks: dict[tuple[int, int], int] = {}
    seen = 0
    stack = [r for r in roots if os.path.isdir(r)]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        result.truncated = True
                        stack.clear()
                        break
                    try:
                        is_dir = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if is_dir:
                        if entry.name not in skipped:
                            stack.append(entry.path)
                        continue
                    if include is not None and _matches(entry.name.casefold(), include, exclude):
                        result.secrets.append(entry.path)
                    if want_links:
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                            key = (st.st_dev, st.st_ino)
                            linked.setdefault(key, []).append(entry.path)
                            nlinks[key] = st.st_nlink
        except OSError:
            continue
    for key, paths in linked.items():
        if nlinks[key] > len(paths):
            result.shared_links += paths
    return result


@functools.lru_cache(maxsize=16)
def _compile(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for many ``fnmatch`` patterns (case-folded): one match call per name."""
    if not patterns:
        return None
    return re.compile("|".join(fnmatch.translate(p.casefold()) for p in patterns))


def _matches(name: str, include: re.Pattern[str], exclude: re.Pattern[str] | None) -> bool:
    return include.match(name) is not None and (exclude is None or exclude.match(name) is None)
