"""Opening a sub-agent's child Session from its index row (first start or re-attach)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.tools.agent import AGENT_TOOL_NAMES

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore


def open_child(parent: SessionCore, record: Any, info: dict[str, Any], session_class: type) -> Any:
    """The child as a Session of the parent's class (``session_class``), sharing the parent's store.

    Without the agent tools (no recursion).  Its model is the requested one, else the
    parent's model object (so scripted and custom models are inherited as they are).
    """
    return session_class(
        record.workspace,
        model=child_model(parent.model, info.get("model")),
        mode=record.mode,
        max_steps=int(info.get("max_steps") or parent.max_steps),
        max_tokens=info.get("max_tokens"),
        # issue 34 hook-in: the parent's prices, the sub-agent's own money budget
        pricing=parent.pricing,
        max_cost=info.get("max_cost"),
        tools=parent.extra_tools,
        session_id=record.session_id,
        _store=parent.store,
        _exclude_tools=AGENT_TOOL_NAMES,
        context_window=parent.budget.window,
        settings=parent.settings,  # the parent's settings and overrides (--tools ...), not re-read
        _extensions=False,  # the parent's MCP servers are not shared; none are started twice
        **parent.hooks_args,  # -- hooks (issue 32): the parent's hooks and trust
    )


def child_model(parent_model: Any, requested: str | None) -> Any:
    """The parent's model object, or the requested one on the parent's endpoint.

    A model named by the ``agent`` call (``model: "small-coder"``) is served where the
    parent's is (its base URL and key, e.g. ``--base-url`` of a local server), not by the
    default endpoint.
    """
    if not requested:
        return parent_model
    base_url = getattr(parent_model, "openai_api_base", None)
    if requested.startswith("script:") or not base_url:
        return requested
    from cairn.graph.models import create_model

    key = getattr(parent_model, "openai_api_key", None)
    secret = key.get_secret_value() if hasattr(key, "get_secret_value") else key
    return create_model(requested, base_url=base_url, api_key=secret or None)
