"""``ScriptedChatModel``: a deterministic chat model that replays a JSON script (see ``cairn.graph.models.script``).

The turn it answers is the number of AIMessages in its input, never in-memory state, so a process
that restarts mid-session replays the right turn.  It streams (content token by token, tool calls
in the last chunk), reports a deterministic ``usage_metadata``, and accepts ``bind_tools`` (the
script decides the calls; bound tools are ignored).  Errors a script asks for raise
``ScriptedModelError`` whose ``status_code`` lets ``is_transient_model_error`` classify it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr, field_validator

from cairn.graph.models.script import (
    SCRIPTED_SUMMARY,
    ScriptedModelError,
    ScriptTurn,
    count_words,
    is_summary_request,
    load_script,
    parse_script,
    summarized_assistant_count,
    turn_at,
)

__all__ = ["ScriptedChatModel", "ScriptedModelError"]


class ScriptedChatModel(BaseChatModel):
    """Replays ``turns``; build it with ``from_file(path)`` or ``from_turns(list)``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    turns: list[ScriptTurn]
    model_name: str = "scripted"
    source: str | None = None
    """Where the script came from (for display); ``None`` when built from a list."""
    summary: ScriptTurn | None = None
    """How a compaction summary request is answered (default: a fixed scripted summary)."""

    # How many times each turn's ``http_error`` has fired in this process (transient failures).
    _failures: dict[int, int] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @field_validator("turns", mode="before")
    @classmethod
    def _parse_raw_turns(cls, value: Any) -> Any:
        """Allow ``ScriptedChatModel(turns=[{"content": "hi"}])`` as well as parsed turns."""
        if isinstance(value, dict) or (
            isinstance(value, list) and not all(isinstance(t, ScriptTurn) for t in value)
        ):
            return parse_script(value)
        return value

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedChatModel:
        return cls(turns=load_script(path), source=str(path))

    @classmethod
    def from_turns(cls, turns: list[Any] | dict[str, Any]) -> ScriptedChatModel:
        return cls(turns=parse_script(turns))

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "source": self.source, "turns": len(self.turns)}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tools like a real model (validating they convert) and keep replaying the script."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    # -- replay -------------------------------------------------------------------------------------

    def _next_turn(self, messages: list[BaseMessage]) -> tuple[int, ScriptTurn]:
        """Pick the turn from the input, then apply its sleep and injected failures.

        A compaction summary request is answered by ``summary`` (index -1) and uses no turn.
        """
        if messages and is_summary_request(messages[0].text):
            index, turn = -1, self.summary or ScriptTurn(chunks=(SCRIPTED_SUMMARY,))
        else:
            index = sum(isinstance(m, AIMessage) for m in messages)
            index += summarized_assistant_count([m.text for m in messages[:3]])
            turn = turn_at(self.turns, index)
        if turn.sleep > 0:
            time.sleep(turn.sleep)
        if turn.error is not None:
            raise ScriptedModelError(*turn.error)
        if turn.http_error is not None:
            with self._lock:
                failed = self._failures.get(index, 0)
                if failed < turn.times:
                    self._failures[index] = failed + 1
                    raise ScriptedModelError(turn.http_error, f"scripted transient error {failed + 1}")
        return index, turn

    def _usage(self, messages: list[BaseMessage], turn: ScriptTurn) -> dict[str, Any]:
        if turn.usage is not None:  # the script states it (known costs in tests)
            tokens_in, tokens_out, cached = turn.usage
            return {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
                "input_token_details": {"cache_read": cached},
            }
        prompt = sum(count_words(m.text) for m in messages)
        output = turn.output_tokens()
        return {"input_tokens": prompt, "output_tokens": output, "total_tokens": prompt + output}

    def _metadata(self, turn: ScriptTurn) -> dict[str, Any]:
        reason = turn.finish_reason  # None for a ``cut`` turn: the reply never said it finished
        return {"model_name": self.model_name, **({"finish_reason": reason} if reason else {})}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        _, turn = self._next_turn(messages)
        valid = [c for c in turn.tool_calls if c.raw_args is None]
        invalid = [c for c in turn.tool_calls if c.raw_args is not None]
        message = AIMessage(
            content=turn.text,
            tool_calls=[{"name": c.name, "args": c.args, "id": c.id, "type": "tool_call"} for c in valid],
            invalid_tool_calls=[
                {
                    "name": c.name,
                    "args": c.raw_args,
                    "id": c.id,
                    "error": "arguments are not valid JSON",
                    "type": "invalid_tool_call",
                }
                for c in invalid
            ],
            usage_metadata=self._usage(messages, turn),
            response_metadata=self._metadata(turn),
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        _, turn = self._next_turn(messages)
        for piece in turn.stream_pieces():
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        last = AIMessageChunk(
            content="",
            tool_call_chunks=[
                {"name": c.name, "args": c.arguments_text, "id": c.id, "index": i, "type": "tool_call_chunk"}
                for i, c in enumerate(turn.tool_calls)
            ],
            usage_metadata=self._usage(messages, turn),
            response_metadata=self._metadata(turn),
            chunk_position="last",
        )
        chunk = ChatGenerationChunk(message=last)
        if run_manager:
            run_manager.on_llm_new_token("", chunk=chunk)
        yield chunk
