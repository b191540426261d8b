"""Hook configuration: ``[[hooks.EVENT]]`` tables of the user and project settings → ``HooksConfig``.

```toml
[[hooks.PreToolUse]]
matcher = "bash|edit_file"      # tool names and aliases (Bash, Edit ...); a regex; "*" or "" for all
command = "python3 .cairn/hooks/check.py"
timeout = 60                    # seconds (default 60)
```

``parse_hooks`` is a pure function of the already-loaded TOML tables (one per source); the
project's hooks carry the hash of their configuration, which a person approves once per
workspace (``cairn.graph.core.hooks.trust``).  Python callables come from ``Session(hooks=...)``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from cairn.errors import ConfigError

#: Every event a hook can be attached to (Claude Code's names).
EVENTS: tuple[str, ...] = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PreCompact",
    "Stop",
    "SubagentStop",
    "Notification",
    "SessionEnd",
)
#: Events whose matcher is matched against a tool name (others: against their ``source``/kind, or all).
TOOL_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
_KEYS = {"matcher", "command", "timeout", "hooks", "type"}


class HooksConfigError(ConfigError):
    """A ``[hooks]`` table that cannot be used (names the source and the entry).

    A :class:`~cairn.errors.ConfigError`: the CLI reports it as one (exit 2)."""


@dataclass(frozen=True)
class HookSpec:
    """One configured hook: a shell command (settings) or a Python callable (``Session(hooks=)``)."""

    event: str
    matcher: str = "*"
    command: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    #: "user" (the user's settings), "project" (the workspace's .cairn/settings.toml) or "python".
    source: str = "user"
    function: Callable[[dict[str, Any]], Any] | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        """How records and listings name the hook."""
        if self.function is not None:
            return f"python:{getattr(self.function, '__qualname__', repr(self.function))}"
        return f"{self.source}:{self.command}"


@dataclass(frozen=True)
class HooksConfig:
    """Every hook of a session, with the hash of the project's part (``""``: none)."""

    hooks: tuple[HookSpec, ...] = ()
    project_hash: str = ""

    def __bool__(self) -> bool:
        return bool(self.hooks)

    @property
    def project(self) -> tuple[HookSpec, ...]:
        return tuple(h for h in self.hooks if h.source == "project")

    def for_event(self, event: str) -> tuple[HookSpec, ...]:
        return tuple(h for h in self.hooks if h.event == event)

    def with_python(self, hooks: Mapping[str, Any] | None) -> HooksConfig:
        """Add ``Session(hooks={"PreToolUse": fn | [fn, ...] | [(matcher, fn), ...]})``."""
        extra: list[HookSpec] = []
        for event, value in (hooks or {}).items():
            _check_event(event, "Session(hooks=...)")
            items = value if isinstance(value, (list, tuple)) else [value]
            for item in items:
                matcher, fn = item if isinstance(item, tuple) else ("*", item)
                if not callable(fn):
                    raise HooksConfigError(f"Session(hooks=...): {event} needs a callable, got {fn!r}")
                _compile(str(matcher), "Session(hooks=...)")
                extra.append(HookSpec(event, str(matcher), None, DEFAULT_TIMEOUT, "python", fn))
        return HooksConfig((*self.hooks, *extra), self.project_hash)


def parse_hooks(user: Mapping[str, Any] | None, project: Mapping[str, Any] | None) -> HooksConfig:
    """The hooks of the user's and the project's settings tables (the whole TOML documents).

    Raises ``HooksConfigError`` naming the source and entry when an entry is malformed.
    """
    user_hooks = _parse_source(user, "user")
    project_hooks = _parse_source(project, "project")
    digest = _digest(project_hooks) if project_hooks else ""
    return HooksConfig((*user_hooks, *project_hooks), digest)


def _parse_source(document: Mapping[str, Any] | None, source: str) -> list[HookSpec]:
    table = (document or {}).get("hooks")
    if table is None:
        return []
    where = f"{source} settings [hooks]"
    if not isinstance(table, Mapping):
        raise HooksConfigError(f"{where} must be a table of [[hooks.EVENT]] entries")
    out: list[HookSpec] = []
    for event, entries in table.items():
        _check_event(event, where)
        if not isinstance(entries, list):
            raise HooksConfigError(f"{where}: hooks.{event} must be an array of tables ([[hooks.{event}]])")
        for index, entry in enumerate(entries):
            out += _parse_entry(event, entry, f"{where}: hooks.{event}[{index}]", source)
    return out


def _parse_entry(event: str, entry: Any, where: str, source: str) -> list[HookSpec]:
    if not isinstance(entry, Mapping):
        raise HooksConfigError(f"{where} must be a table with matcher/command/timeout")
    unknown = set(entry) - _KEYS
    if unknown:
        raise HooksConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    matcher = entry.get("matcher", "*")
    if not isinstance(matcher, str):
        raise HooksConfigError(f"{where}: matcher must be a string")
    _compile(matcher, where)
    # Claude Code's nested shape ({matcher, hooks = [{type, command, timeout}]}) is read too.
    commands = entry.get("hooks") if "hooks" in entry else [entry]
    if not isinstance(commands, list):
        raise HooksConfigError(f"{where}: hooks must be an array of {{type, command, timeout}} tables")
    out = []
    for item in commands:
        if not isinstance(item, Mapping):
            raise HooksConfigError(f"{where}: each hook must be a table")
        kind = item.get("type", "command")
        if kind != "command":
            raise HooksConfigError(f'{where}: only type = "command" hooks are supported, not {kind!r}')
        command = item.get("command")
        if not isinstance(command, str) or not command.strip():
            raise HooksConfigError(f"{where}: command must be a non-empty string")
        timeout = item.get("timeout", DEFAULT_TIMEOUT)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not 0 < timeout <= MAX_TIMEOUT
        ):
            raise HooksConfigError(f"{where}: timeout must be a number of seconds in (0, {MAX_TIMEOUT:.0f}]")
        out.append(HookSpec(event, matcher, command, float(timeout), source))
    return out


def _check_event(event: str, where: str) -> None:
    if event not in EVENTS:
        raise HooksConfigError(f"{where}: unknown hook event {event!r} (one of {', '.join(EVENTS)})")


def _compile(matcher: str, where: str) -> None:
    if matcher in ("", "*"):
        return
    try:
        re.compile(matcher)
    except re.error as exc:
        raise HooksConfigError(f"{where}: matcher {matcher!r} is not a valid regex: {exc}") from None


def _digest(hooks: list[HookSpec]) -> str:
    """The content hash a person's approval of the project's hooks is keyed by."""
    data = [[h.event, h.matcher, h.command, h.timeout] for h in hooks]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
