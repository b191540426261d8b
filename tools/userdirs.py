"""cairn's per-user directories for the tools layer (computed once, in :mod:`cairn.userdirs`)."""

from __future__ import annotations

from cairn.userdirs import user_config_dir, user_state_dir

__all__ = ["user_config_dir", "user_state_dir"]
