"""A stored session as ``session/update`` notifications (``session/load``).

Person messages become ``user_message_chunk``, the model's text ``agent_message_chunk`` (its
reasoning, where the provider returned one, ``agent_thought_chunk``), every tool call a
``tool_call`` with its final state, and the task list a ``plan``.  Calls still waiting for a
person (awaiting approval, or interrupted by a crash) are shown as pending; the agent then asks
about them with ``session/request_permission``.
"""

from __future__ import annotations

from typing import Any

from acp import helpers
from langchain_core.messages import AIMessage, BaseMessage

from cairn.graph.apps.acp.updates import CallView, call_update, plan_update
from cairn.graph.core.messages import is_person_message, message_text


def replay_updates(session: Any, view: CallView) -> list[Any]:
    """Everything the editor needs to show the stored conversation (runs on the worker thread)."""
    history: list[BaseMessage] = session.history()
    by_id = {c.call_id: c.to_state() for c in session.tool_calls()}
    by_id.update({c.call_id: c.to_state() for c in session.pending()})
    updates: list[Any] = []
    for message in history:
        if is_person_message(message):
            updates.append(helpers.update_user_message_text(str(message.content)))
        elif isinstance(message, AIMessage):
            thought = _reasoning(message)
            if thought:
                updates.append(helpers.update_agent_thought_text(thought))
            text = message_text(message)
            if text:
                updates.append(helpers.update_agent_message_text(text))
            for tool_call in message.tool_calls:
                call = by_id.get(tool_call["id"]) or {
                    "call_id": tool_call["id"],
                    "tool_name": tool_call["name"],
                    "arguments": tool_call.get("args") or {},
                    "status": "pending",
                }
                updates.append(call_update(call, view, replay=True))
    plan = plan_update(session.tasks())
    if plan is not None and plan.entries:
        updates.append(plan)
    return updates


def _reasoning(message: AIMessage) -> str:
    extra = message.additional_kwargs or {}
    value = extra.get("reasoning_content") or extra.get("reasoning")
    return value if isinstance(value, str) else ""
