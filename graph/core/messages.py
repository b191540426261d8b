"""Small helpers about messages shared by the nodes and the Session."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage


def message_text(message: AIMessage) -> str:
    """The text of a message whose content may be a string or content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def is_person_message(message: BaseMessage) -> bool:
    """A message the person typed (image follow-ups from tools carry list content)."""
    return isinstance(message, HumanMessage) and isinstance(message.content, str)
