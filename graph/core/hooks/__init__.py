"""Hooks (issue 32): the user's own commands at each step of a session, journaled like tool calls.

``config`` parses ``[[hooks.EVENT]]`` tables, ``matching`` picks hooks by tool name and alias,
``runner`` runs one (a command or a Python callable), ``outcome`` reads exit codes and JSON,
``engine`` fires an event's hooks, ``tool_hooks`` ties PreToolUse/PermissionRequest/PostToolUse
to the tool-call lifecycle, ``trust`` records approvals of a project's hooks.
"""

from cairn.graph.core.hooks.config import EVENTS, HooksConfig, HooksConfigError, HookSpec, parse_hooks
from cairn.graph.core.hooks.runner import HookBlock

__all__ = ["EVENTS", "HookBlock", "HookSpec", "HooksConfig", "HooksConfigError", "parse_hooks"]
