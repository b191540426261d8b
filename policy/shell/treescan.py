"""What a glob or a symlink-following recursive reader reaches on disk, judged before it runs.

A glob is matched against the real directory (bash rules: ``*`` skips dot files unless the
pattern starts with a dot) so every candidate is judged like a path given by name, and a pattern
that can spell a credential's name asks even when no such file exists yet.  A recursive reader
that follows symlinks (``grep -R``, ``rg -L``, ``find -L``, ``tree -l``) asks when a symlink under
its start point leads out of the workspace.  Both walks are bounded: past the bound, what was
not looked at counts as unknown.
"""

from __future__ import annotations

import fnmatch
import glob
import itertools
import os
from pathlib import Path

from cairn.policy.vocab import words
from cairn.tools.workspace import Workspace

__all__ = ["MAX_GLOB", "MAX_WALK", "follows_links", "glob_matches", "names_secret", "outside_link"]

MAX_GLOB = 256
MAX_WALK = 20_000
#: Names a credential file may have, for patterns matched before the file exists.
_SECRET_SAMPLES = words(
    """.env .env.local .envrc .netrc .npmrc .pypirc .pgpass .git-credentials .vault-token id_rsa id_ed25519 id_ecdsa credentials credentials.json key.pem server.key cert.p12 keystore.jks terraform.tfstate service-account.json auth.json token.json"""
)


def glob_matches(pattern: str, cwd: Path | None) -> tuple[list[str], bool]:
    """The paths ``pattern`` names now (as bash would list them), and whether there were more
    than :data:`MAX_GLOB`."""
    found = glob.iglob(pattern, root_dir=None if os.path.isabs(pattern) or cwd is None else cwd)
    names = list(itertools.islice(found, MAX_GLOB + 1))
    return names[:MAX_GLOB], len(names) > MAX_GLOB


def names_secret(pattern: str, dotfiles: bool = False) -> str | None:
    """A credential name the last component of ``pattern`` can match, or ``None``.  ``*`` alone
    (or ``*.py``) names no credential: a leading ``*`` never matches a dot file in bash
    (``dotfiles``: it does, as in ``find -name``)."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    if not any(c in last for c in "*?[") or not last.strip("*?"):
        return None  # no glob, or "*" alone: what it matches now is judged match by match
    for name in _SECRET_SAMPLES:
        if name.startswith(".") and not last.startswith(".") and not dotfiles:
            continue
        if fnmatch.fnmatchcase(name, last):
            return name
    return None


#: program -> (short letters that follow symlinks, long options that do); find and tree differ.
_FOLLOW = {
    "grep": ("R", ("--dereference-recursive",)),
    "egrep": ("R", ("--dereference-recursive",)),
    "fgrep": ("R", ("--dereference-recursive",)),
    "rg": ("L", ("--follow",)),
    "fd": ("L", ("--follow",)),
    "fdfind": ("L", ("--follow",)),
    "ag": ("f", ("--follow",)),
    "du": ("L", ("--dereference",)),
    "tree": ("l", ()),
}


def follows_links(name: str, args: list[str]) -> bool:
    """Whether ``name args`` walks directories and follows the symlinks it meets there."""
    if name == "find":
        return any(a in ("-L", "-follow") for a in args)
    if name in ("ls", "dir", "vdir"):
        return _has(args, "L", ("--dereference",)) and _has(args, "R", ("--recursive",))
    spec = _FOLLOW.get(name)
    return spec is not None and _has(args, *spec)


def _has(args: list[str], letters: str, longs: tuple[str, ...]) -> bool:
    for arg in args:
        if arg == "--":
            return False
        if arg.startswith("--"):
            if arg.split("=", 1)[0] in longs:
                return True
        elif arg.startswith("-") and any(c in arg[1:] for c in letters):
            return True
    return False


def outside_link(start: Path, workspace: Workspace) -> str | None:
    """Why following symlinks under ``start`` can leave the workspace, or ``None``."""
    if not start.is_dir():
        return None
    seen = 0
    for top, dirs, files in os.walk(start, followlinks=False):
        for entry in itertools.chain(dirs, files):
            seen += 1
            if seen > MAX_WALK:
                return f"{start} has more than {MAX_WALK:,} entries to check for symlinks"
            path = os.path.join(top, entry)
            if os.path.islink(path) and not workspace.contains(Path(os.path.realpath(path))):
                return f"the symlink {path} leads out of the workspace (to {os.path.realpath(path)})"
    return None
