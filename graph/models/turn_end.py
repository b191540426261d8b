"""How a model turn ended: cleanly, or cut off (a fact the reply's ``finish_reason`` states).

A reply that stopped because it hit the output limit (``finish_reason: "length"``), or whose
stream ended before the server said why it finished, is not a complete turn: its tool calls'
arguments may be truncated JSON that LangChain's partial-JSON parser "repairs" into something
the model never meant (``line1\\nli`` instead of four lines), and its text stops mid-sentence.
``reasoning`` runs none of its calls and marks a cut answer ``incomplete``.

Only models known to report a finish reason on every reply (the OpenAI-compatible client, the
scripted model) are judged by its absence; a custom chat model that never reports one is
taken at its word.
"""

from __future__ import annotations

from typing import Any

#: ``finish_reason`` values that mean the output limit cut the reply.
LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})
#: Model classes (by name, so the OpenAI client need not be imported) that always report one.
_REPORTING_CLASSES = frozenset({"BaseChatOpenAI", "ScriptedChatModel"})

CUT_BY_LENGTH = "the reply reached the model's output limit (finish_reason: length)"
CUT_STREAM = "the reply stream ended before the model finished it (no finish_reason)"


def finish_reason(message: Any) -> str | None:
    metadata = getattr(message, "response_metadata", None) or {}
    reason = metadata.get("finish_reason") or metadata.get("stop_reason")
    return str(reason) if reason else None


def reports_finish_reason(model: Any) -> bool:
    """Whether ``model`` states a finish reason on every reply it completes."""
    return any(cls.__name__ in _REPORTING_CLASSES for cls in type(model).__mro__)


def cut_off(message: Any, model: Any) -> str | None:
    """Why ``message`` is not a complete turn, or None when it ended cleanly."""
    reason = finish_reason(message)
    if reason is not None:
        return CUT_BY_LENGTH if reason.lower() in LENGTH_REASONS else None
    return CUT_STREAM if reports_finish_reason(model) else None


def cut_call_error(name: str, why: str) -> str:
    """What the model is told about a tool call of a cut-off turn (it was not run)."""
    return (
        f"Your call to {name} was cut off before it was complete ({why}), so it was not run. "
        "Send the call again; if its arguments are large, make them smaller (split the content "
        "over several calls, e.g. write part of a file and append the rest with edits)."
    )
