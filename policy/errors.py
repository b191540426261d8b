"""Errors the policy raises (configuration only: evaluation never raises for bad input)."""

from __future__ import annotations

from cairn.errors import ConfigError


class PolicyConfigError(ConfigError):
    """A settings file or rule string is invalid; the message names the file and the rule."""
