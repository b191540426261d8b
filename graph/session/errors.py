"""Errors the Session API raises."""


class SessionError(RuntimeError):
    """A request the session cannot honour in its current state (message says why)."""
