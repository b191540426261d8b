"""When ripgrep's fast ``-g NAME`` pre-filter is safe for glob listings.

``rg -g '*.py'`` is the quickest way to list Python files, but a whitelist glob
overrides ignore rules: a gitignored ``gen_pb2.py`` (or every file in a
gitignored directory named ``x.py``) would come back.  The listing therefore
runs ``rg -g NAME -g .gitignore`` -- which also lists the ``.gitignore`` files
of the directories rg walked -- and keeps the result only when no ignore
pattern of the scope can match a name that NAME matches.  Otherwise it runs
again with a file-type filter, which applies after the ignore rules (correct,
but it makes rg check every file against the rules: ~10 ms more on 27,000 files).
"""

from __future__ import annotations

import re

from cairn.tools.file_ops.globs import split_top_level, translate
from cairn.tools.file_ops.ignore import IgnoreFile

_WILD = re.compile(r"[*?\[\\{]")


def may_reinclude(ignore_files: list[IgnoreFile], name_glob: str) -> bool:
    """Whether some ignoring pattern could match a file or directory whose name matches
    ``name_glob`` (conservative: ``True`` unless they are shown to be disjoint)."""
    names = _expand(name_glob)
    for ig in ignore_files:
        for pattern in ig.patterns:
            if pattern.negated:
                continue  # re-including rules never hide anything
            last = pattern.glob.rpartition("/")[2]
            if any(_may_overlap(last, name) for name in names):
                return True
    return False


def _expand(glob: str) -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (the name globs used here have no nested braces)."""
    m = re.search(r"\{([^{}]*)\}", glob)
    if m is None:
        return [glob]
    out: list[str] = []
    for alt in split_top_level(m.group(1)) or [""]:
        out += _expand(glob[: m.start()] + alt + glob[m.end() :])
    return out


def _may_overlap(ignore_name: str, name: str) -> bool:
    if not ignore_name:
        return True
    if _WILD.search(ignore_name) is None:
        return re.fullmatch(translate(name), ignore_name, re.DOTALL) is not None
    if _WILD.search(name) is None:
        return re.fullmatch(translate(ignore_name, braces=False), name, re.DOTALL) is not None
    prefix_a, suffix_a = _fixed_ends(ignore_name)
    prefix_b, suffix_b = _fixed_ends(name)
    if not (prefix_a.startswith(prefix_b) or prefix_b.startswith(prefix_a)):
        return False
    return suffix_a.endswith(suffix_b) or suffix_b.endswith(suffix_a)


def _fixed_ends(glob: str) -> tuple[str, str]:
    """The literal text before the first and after the last wildcard."""
    first = _WILD.search(glob)
    prefix = glob[: first.start()] if first else glob
    last_end = 0
    for m in _WILD.finditer(glob):
        last_end = m.end()
        if m.group(0) == "[":
            close = glob.find("]", m.end() + 1)
            last_end = close + 1 if close >= 0 else len(glob)
    return prefix, glob[last_end:]
