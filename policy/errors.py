"""Errors the policy raises (configuration only: evaluation never raises for bad input)."""

from __future__ import annotations


class PolicyConfigError(ValueError):
    """A settings file or rule string is invalid; the message names the file and the rule."""
