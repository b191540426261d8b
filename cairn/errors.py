"""The root of cairn's exceptions, importable from every layer (it imports nothing of cairn).

Every error cairn raises on purpose derives from :class:`CairnError`; configuration problems
(a settings file, a flag, a variable, a database location, a model spec) are
:class:`ConfigError`, which the CLI reports as one plain line with exit code 2.  Both also keep
the builtin base they had (``ValueError``, ``RuntimeError`` ...) so existing ``except`` clauses
still catch them.  Private control-flow exceptions (a cancelled search, a leave request) stay
outside this tree: they never reach a caller.
"""

from __future__ import annotations

__all__ = ["CairnError", "ConfigError"]


class CairnError(Exception):
    """Any error cairn raises on purpose."""


class ConfigError(CairnError, ValueError):
    """A configuration value cannot be used; the message names the file, the key and the problem.

    ``ConfigError("must be an integer", file="/x/settings.toml", key="agents.max_steps")`` reads
    ``/x/settings.toml: agents.max_steps: must be an integer``.  Subclasses built from one
    ready-made message (``PolicyConfigError("...")``) keep that message as it is.
    """

    def __init__(self, problem: str, *, file: str | None = None, key: str | None = None) -> None:
        self.problem = problem
        self.file = None if file is None else str(file)
        self.key = key
        super().__init__(": ".join(part for part in (self.file, key, problem) if part))
