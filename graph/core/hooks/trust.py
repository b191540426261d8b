"""Approvals of a project's hooks: per workspace and hash of the project's ``[hooks]``.

A project's ``.cairn/settings.toml`` runs commands from the repository, so its hooks run only
once a person approved that exact configuration for that workspace (as ``.mcp.json`` servers
are approved, :mod:`cairn.tools.mcp_servers.trust`); any change asks again.  The approval
also records the sandbox profile the person chose for them (``workspace-write`` unless they
picked ``off``).  Records live in ``<state dir>/hooks_approvals.json``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from cairn.tools.userdirs import user_state_dir

PROFILES = ("workspace-write", "read-only", "off")
DEFAULT_PROFILE = "workspace-write"


def approvals_file() -> Path:
    return user_state_dir() / "hooks_approvals.json"


def _load(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, OSError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        root: {d: p for d, p in v.items() if isinstance(p, str) and p in PROFILES}
        for root, v in data.items()
        if isinstance(v, dict)
    }


def approved_profile(root: Path, digest: str) -> str | None:
    """The sandbox profile the person approved this workspace's hooks with, or None (not approved)."""
    if not digest:
        return None
    return _load(approvals_file()).get(str(root), {}).get(digest)


def record_approval(root: Path, digest: str, profile: str = DEFAULT_PROFILE) -> None:
    """Remember that a person approved this workspace's hooks with this configuration hash."""
    if profile not in PROFILES:
        raise ValueError(f"unknown sandbox profile {profile!r} (one of {', '.join(PROFILES)})")
    path = approvals_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = _load(path)
    data.setdefault(str(root), {})[digest] = profile
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".hooks_approvals.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)
