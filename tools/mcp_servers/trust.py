"""Approvals of a project's MCP servers: recorded per workspace and configuration hash.

A project's ``.mcp.json`` (or ``[mcp_servers]`` in ``.cairn/settings.toml``) runs commands from
the repository, so its servers start only once a person approved that exact configuration for
that workspace.  Any change to the configuration (a new server, another command) asks again.
Records live in ``<state dir>/mcp_approvals.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from cairn.atomic import atomic_write
from cairn.tools.userdirs import user_state_dir

__all__ = ["approvals_file", "is_approved", "record_approval"]


def approvals_file() -> Path:
    return user_state_dir() / "mcp_approvals.json"


def _load(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, OSError):
        return {}
    return {k: [h for h in v if isinstance(h, str)] for k, v in data.items() if isinstance(v, list)}


def is_approved(root: Path, digest: str) -> bool:
    return digest in _load(approvals_file()).get(str(root), [])


def record_approval(root: Path, digest: str) -> None:
    """Remember that a person approved this workspace's servers with this configuration hash."""
    path = approvals_file()
    data = _load(path)
    hashes = data.setdefault(str(root), [])
    if digest not in hashes:
        hashes.append(digest)
    atomic_write(path, json.dumps(data, indent=1, sort_keys=True))
