"""Where files of a given name are in the workspace: the hint for a path a small model invented.

Small models put files under directories that do not exist (``src/test_parity.py`` for
``test_parity.py``) or grep for a file's *name* as if it were text in the file (issue 31's runs);
the real place helps them more than "not found".
"""

from __future__ import annotations

import os
from pathlib import Path

#: How many directory entries ``files_named`` looks at before it gives up (a bound on its cost).
SCAN_LIMIT = 5_000
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", "dist", "build"})


def files_named(root: Path, name: str, limit: int = 3) -> list[str]:
    """Paths (relative to ``root``, at most ``limit``) of files called ``name``."""
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        seen += len(dirs) + len(files)
        if name in files:
            found.append(os.path.relpath(os.path.join(folder, name), root))
        if len(found) >= limit or seen > SCAN_LIMIT:
            break
    return found


def only_file_named(root: Path, path: Path) -> str | None:
    """The workspace's one file named like ``path``, when ``path`` sits in a directory that does
    not exist (``src/calc.py``, ``workspace/settings.toml`` for ``calc.py``, ``settings.toml``).

    read_file reads that file instead, and says so: the model meant it (issue 31's runs), and
    reading it is no different a read from the one asked for, since the name is the same and
    ``files_named`` looks outside hidden and vendored directories only."""
    if path.exists() or path.parent.exists():
        return None
    found = files_named(root, path.name, limit=2)
    return found[0] if len(found) == 1 else None
