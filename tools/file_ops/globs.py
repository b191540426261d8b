"""Glob patterns compiled to regular expressions over ``/``-separated relative paths.

One translator serves both the ``glob``/``grep`` tools (with ``{a,b}`` braces)
and ``.gitignore`` lines (no braces).  ``*`` and ``?`` never cross ``/``;
``**`` as a whole path component matches any number of directories; ``*``
matches dotfiles too (as in ripgrep and gitignore).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Globs ripgrep's ``-g`` interprets exactly like :func:`translate` (safe to pre-filter with).
_RG_SAFE = re.compile(r"[A-Za-z0-9._*?{},+@~ -]+")


def translate(pattern: str, *, braces: bool = True) -> str:
    """Regex source (no anchors) for a glob."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole:
                if j < n:  # "**/": zero or more directories
                    out.append("(?:.*/)?")
                    j += 1
                else:  # trailing "**": everything below
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _char_class(pattern, i)
            out.append(cls)
        elif c == "\\":
            out.append(re.escape(pattern[i + 1]) if i + 1 < n else re.escape("\\"))
            i += 2
        elif c == "{" and braces:
            alts, end = _brace_alternatives(pattern, i)
            if alts is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append("(?:" + "|".join(translate(a, braces=True) for a in alts) + ")")
                i = end
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    """Translate ``[...]`` starting at ``pattern[i]``; an unclosed ``[`` is a literal."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    parts: list[str] = []
    first = True
    while j < len(pattern) and (pattern[j] != "]" or first):
        ch = pattern[j]
        if ch == "\\" and j + 1 < len(pattern):
            parts.append(re.escape(pattern[j + 1]))
            j += 2
        else:
            parts.append("-" if ch == "-" and not first else re.escape(ch))
            j += 1
        first = False
    if j >= len(pattern):
        return re.escape("["), i + 1
    body = "".join(parts)
    return ("[^/" + body + "]") if negate else ("[" + body + "]"), j + 1


def _brace_alternatives(pattern: str, i: int) -> tuple[list[str] | None, int]:
    """Split ``{a,b,{c,d}}`` at its top-level commas; ``(None, i)`` when unbalanced."""
    depth, start, alts = 0, i + 1, []
    for j in range(i, len(pattern)):
        ch = pattern[j]
        if ch == "\\":
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                alts.append(pattern[start:j])
                return alts, j + 1
        elif ch == "," and depth == 1:
            alts.append(pattern[start:j])
            start = j + 1
    return None, i


def split_top_level(pattern: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside braces: ``"*.py,{a,b}.md"`` -> ``["*.py", "{a,b}.md"]``."""
    parts, depth, start = [], 0, 0
    for j, ch in enumerate(pattern):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(pattern[start:j])
            start = j + 1
    parts.append(pattern[start:])
    return [p.strip() for p in parts if p.strip()]


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A regex that ``fullmatch``-es relative paths the glob selects (``./`` prefix ignored)."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return re.compile(translate(pattern), re.DOTALL)


def path_filter(globs: str) -> Callable[[str], bool]:
    """The ``glob`` argument of grep: comma-separated globs; one without ``/`` matches the file
    name at any depth (like ``rg -g``), one with ``/`` the path relative to the search root."""
    name_rx: list[re.Pattern[str]] = []
    path_rx: list[re.Pattern[str]] = []
    for g in split_top_level(globs):
        (path_rx if "/" in g else name_rx).append(compile_glob(g))

    def accept(rel: str) -> bool:
        name = rel.rpartition("/")[2]
        return any(r.fullmatch(name) for r in name_rx) or any(r.fullmatch(rel) for r in path_rx)

    return accept


def rg_name_glob(glob: str) -> str | None:
    """A file-name glob ripgrep can pre-filter with for ``glob`` (a superset), or ``None``.

    Only the last path component is used, and only when it is made of plain
    characters, ``*``, ``?`` and braces, whose meaning ripgrep shares.
    """
    last = glob.rpartition("/")[2] if "{" not in glob or "/" not in glob else None
    if not last or "**" in last or not _RG_SAFE.fullmatch(last):
        return None
    return last


def literal_prefix(pattern: str) -> tuple[str, str]:
    """Split a glob into leading literal directories and the rest: ``src/**/*.py`` ->
    (``src``, ``**/*.py``). A pattern without magic characters is all prefix."""
    parts = pattern.split("/")
    prefix: list[str] = []
    for k, part in enumerate(parts):
        if any(ch in part for ch in "*?[{\\"):
            return "/".join(prefix), "/".join(parts[k:])
        prefix.append(part)
    return "/".join(prefix), ""
