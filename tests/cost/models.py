"""Chat models for the cost and telemetry tests: known usage per turn, a parent and its sub-agent."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult


def usage(tokens_in: int, cached: int, tokens_out: int) -> dict[str, Any]:
    return {
        "input_tokens": tokens_in,
        "output_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
        "input_token_details": {"cache_read": cached},
    }


def reply(model: str, text: str, use: dict[str, Any], calls: list[dict] | None = None) -> AIMessage:
    return AIMessage(
        text, tool_calls=calls or [], usage_metadata=use, response_metadata={"model_name": model}
    )


#: The parent (gpt-4o): $0.25 then $0.60.  Its sub-agent (gpt-4o-mini): $0.021 then $0.0075.
PARENT_COSTS = (0.25, 0.60)
CHILD_COSTS = (0.021, 0.0075)


class ParentAndAgentModel(BaseChatModel):
    """The parent asks a read-only sub-agent (the ``task`` tool), which greps, then answers."""

    model_name: str = "gpt-4o"

    @property
    def _llm_type(self) -> str:
        return "cost-test"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ParentAndAgentModel:
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        first = next(m for m in messages if isinstance(m, HumanMessage))
        ais = sum(isinstance(m, AIMessage) for m in messages)
        if "[sub-agent task" in str(first.content):
            turns = [
                reply(
                    "gpt-4o-mini",
                    "",
                    usage(100_000, 0, 10_000),
                    [{"name": "grep", "args": {"pattern": "def target"}, "id": "s1", "type": "tool_call"}],
                ),
                reply("gpt-4o-mini", "target is in lib/code.py", usage(100_000, 100_000, 0)),
            ]
        else:
            task = {"description": "find target", "prompt": "Where is target defined?"}
            turns = [
                reply(
                    "gpt-4o",
                    "",
                    usage(100_000, 40_000, 5_000),
                    [{"name": "task", "args": task, "id": "t1", "type": "tool_call"}],
                ),
                reply("gpt-4o-2024-08-06", "It is in lib/code.py", usage(200_000, 0, 10_000)),
            ]
        return ChatResult(generations=[ChatGeneration(message=turns[min(ais, len(turns) - 1)])])
