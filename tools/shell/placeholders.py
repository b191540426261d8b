"""The empty protected directories a sandbox makes to mount them, removed after the command.

To keep a sandboxed command from creating ``.cairn/`` (settings cairn would trust) or
``.git/hooks``, the sandbox mounts them read-only, and creates them empty first when they are
missing (``SandboxSpec.placeholder_dirs``).  Left behind, they are an unexplained empty
``.cairn/`` in the person's project after any writing command.  The bash tool notes which were
missing before a foreground command and removes those still empty once it has finished.
"""

from __future__ import annotations

import os
from typing import Any


def missing_placeholders(sandbox: Any) -> list[str]:
    """The placeholder directories of ``sandbox`` (a ``SandboxSpec`` or ``None``) that do not exist."""
    dirs = getattr(sandbox, "placeholder_dirs", None) or ()
    return [path for path in dirs if not os.path.lexists(path)]


def remove_placeholders(paths: list[str]) -> None:
    """Remove each of ``paths`` that is now an empty directory (one the command filled stays)."""
    for path in reversed(paths):  # deeper ones first
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                os.rmdir(path)  # only succeeds when empty
            except OSError:
                pass
