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
