"""Does a rule's specifier match a call?  Bash commands, paths and domains."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from cairn.policy.paths import PathInfo, home_dir

__all__ = ["bash_matches", "domain_matches", "path_matches"]


def _normalize_command(text: str) -> str:
    return " ".join(text.split())


def _unquote(spec: str) -> str:
    """Rules may quote arguments (``bash(echo 'a;b')``); commands are matched unquoted."""
    if not any(c in spec for c in "'\"\\"):
        return spec
    try:
        return " ".join(shlex.split(spec))
    except ValueError:
        return spec


@lru_cache(maxsize=512)
def _bash_regex(spec: str) -> re.Pattern[str]:
    suffix = ":*" if spec.endswith(":*") else ""
    spec = _unquote(spec[: len(spec) - len(suffix)]) + suffix
    if spec.endswith(":*"):
        prefix = spec[:-2].rstrip()
        return re.compile(re.escape(prefix) + r"(?: .*)?", re.DOTALL)
    if spec.endswith(" *"):  # "git log *" also matches a bare "git log"
        head = spec[:-2]
        return re.compile(_wildcards(head) + r"(?: .*)?", re.DOTALL)
    return re.compile(_wildcards(spec), re.DOTALL)


def _wildcards(text: str) -> str:
    return ".*".join(re.escape(part) for part in text.split("*"))


def bash_matches(spec: str | None, commands: Iterable[str]) -> bool:
    """Whether a bash specifier matches any of the given forms of one simple command."""
    if spec is None:
        return True
    regex = _bash_regex(spec)
    return any(regex.fullmatch(_normalize_command(c)) for c in commands)


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
        elif ch == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            alternatives = pattern[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_glob_regex(a) for a in alternatives) + ")")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def _path_regex(spec: str, root: str, home: str) -> re.Pattern[str]:
    pattern = spec.rstrip("/") or "/"
    if pattern == "~" or pattern.startswith("~/"):
        anchored = (
            re.escape(home.rstrip("/")) + "/" + _glob_regex(pattern[2:])
            if pattern != "~"
            else re.escape(home)
        )
    elif pattern.startswith("/"):
        anchored = _glob_regex(pattern) if pattern != "/" else ""
    elif "/" in pattern.removeprefix("./"):
        anchored = re.escape(root.rstrip("/")) + "/" + _glob_regex(pattern.removeprefix("./"))
    elif pattern.startswith("./"):
        anchored = re.escape(root.rstrip("/")) + "/" + _glob_regex(pattern[2:])
    else:  # a bare name: that name at any depth, like .gitignore
        anchored = "(?:.*/)?" + _glob_regex(pattern)
    # A rule naming a directory also covers everything below it.
    return re.compile(anchored + "(?:/.*)?", re.DOTALL)


def path_matches(spec: str | None, info: PathInfo, root: Path, *, lexical_too: bool) -> bool:
    """Whether a path specifier matches the real path (and, for deny/ask rules, the written one)."""
    if spec is None:
        return True
    regex = _path_regex(spec, str(root), str(home_dir()))
    candidates = [info.path, info.lexical] if lexical_too else [info.path]
    return any(regex.fullmatch(str(p)) for p in candidates)


def domain_matches(spec: str | None, host: str) -> bool:
    """``domain:example.com`` matches that host; ``domain:*.example.com`` its subdomains."""
    if spec is None:
        return True
    pattern = spec.removeprefix("domain:")
    host = host.lower().rstrip(".")
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    return host == pattern
