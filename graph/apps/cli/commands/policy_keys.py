"""``cairn policy check``'s warning about argument keys the tool does not have.

The policy judges whatever arguments it is given: ``{"cmd": "rm -rf build"}`` for ``bash`` is
judged as a bash call without a command, a verdict that says nothing about the command meant.
A misspelled key is flagged (on stderr) so the person does not trust that verdict.
"""

from __future__ import annotations

import json
from typing import Any


def unknown_keys(tool_name: str, args: dict[str, Any]) -> tuple[str, list[str], list[str]] | None:
    """``(tool, unknown keys, known keys)`` for a built-in tool (name or alias), else None."""
    from cairn.tools import builtin_tool_classes

    wanted = tool_name.lower()
    for cls in builtin_tool_classes():
        names = {cls.name.lower(), *(a.lower() for a in getattr(cls, "aliases", ()))}
        if wanted not in names:
            continue
        known: set[str] = set()
        for name, field in cls.args_schema.model_fields.items():
            known.add(name)
            if field.alias:
                known.add(field.alias)
            choices = getattr(field.validation_alias, "choices", None) or ()
            known.update(c for c in choices if isinstance(c, str))
        unknown = sorted(k for k in args if k not in known)
        return (cls.name, unknown, sorted(cls.args_schema.model_fields)) if unknown else None
    return None


def warning(argv: list[str]) -> str | None:
    """The warning for ``check TOOL ARGS ...`` (``argv`` after translation), or None."""
    words = [a for a in argv if not a.startswith("-")]
    if len(words) < 3 or words[0] != "check":
        return None
    try:
        args = json.loads(words[2])
    except json.JSONDecodeError:
        return None  # the policy CLI explains bad JSON
    if not isinstance(args, dict):
        return None
    found = unknown_keys(words[1], args)
    if found is None:
        return None
    tool, unknown, known = found
    return (
        f"warning: {tool} has no argument {', '.join(repr(k) for k in unknown)} "
        f"(its arguments: {', '.join(known)}); the verdict below ignores what you meant by it"
    )
