"""A scripted chat model that answers as the parent or as a sub-agent (by its task's description)."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class AgentsModel(BaseChatModel):
    """``scripts`` maps ``"parent"`` or a sub-agent's description to its turns (AIMessages)."""

    scripts: dict[str, list[AIMessage]]

    @property
    def _llm_type(self) -> str:
        return "agents-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> AgentsModel:
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        first = next(m for m in messages if isinstance(m, HumanMessage))
        found = re.search(r"\[sub-agent task: ([^\]]*)\]", str(first.content))
        who = found.group(1) if found else "parent"
        turns = self.scripts[who]
        ais = sum(isinstance(m, AIMessage) for m in messages)
        return ChatResult(generations=[ChatGeneration(message=turns[min(ais, len(turns) - 1)])])


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])
