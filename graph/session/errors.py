"""Errors the Session API raises."""

from cairn.errors import CairnError


class SessionError(CairnError, RuntimeError):
    """A request the session cannot honour in its current state (message says why)."""
