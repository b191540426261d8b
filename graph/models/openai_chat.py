"""``ChatOpenAI`` with a request body that costs what serializing it costs.

The OpenAI SDK runs every typed request parameter through a recursive transform
(``openai._utils._transform``) that walks each message, content part, tool call and tool
schema: at 1,000 messages that is ~180 ms of CPU per model call, linear in the history.
Here the chat messages and the tool schemas, already plain JSON-ready dicts, travel in
``extra_body`` instead (the SDK merges it into the body untouched) while ``messages`` itself
is sent empty and then overridden by the merge.  Everything else goes the normal way:
``ChatOpenAI``'s streaming, tool-call deltas, usage, the SDK's retries and error mapping do
not change, and the Responses API or ``response_format`` requests (which the SDK parses with
their typed parameters) use the stock path.

Converting LangChain messages to OpenAI dicts is also linear in the history; the dict of each
message object is kept for the next call (a session sends the same history again plus a few
new messages), keyed by object identity and dropped once a call no longer contains it.

The body is then serialized with orjson instead of the SDK's ``json.dumps`` (the next largest
cost), through the client's own hook for it, ``_prepare_options``: the finished JSON goes out as
the request's ``content``.

A reply without choices (``choices: []``, which some servers send on an internal failure) is
asked for once more, then fails with ``EmptyReplyError``: it is not an empty answer.  Strings holding lone surrogates (text that was not valid UTF-8, kept by ``surrogateescape``)
cannot be encoded as UTF-8 by any JSON encoder: they are sent in ``text_escape``'s escaped form
(``\\xff``), the form the file tools show and accept.  What orjson cannot serialize otherwise
is left to the SDK.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Self

import openai
import orjson
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import _convert_from_v1_to_chat_completions, _convert_message_to_dict
from pydantic import PrivateAttr, model_validator

from cairn.checkpoints.text_escape import escape_data
from cairn.graph.models.errors import EmptyReplyError

#: Parameters that are large and plain JSON: they bypass the SDK's typed transform.
UNTYPED_KEYS = ("messages", "tools")


class CairnChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` whose messages and tools skip the SDK's per-message typed transform."""

    _converted: dict[int, tuple[BaseMessage, dict[str, Any]]] = PrivateAttr(default_factory=dict)
    _converted_lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @model_validator(mode="after")
    def _orjson_client(self) -> Self:
        # The SDK client ChatOpenAI built, given the one extra behaviour (same state, same layout).
        if type(self.root_client) is openai.OpenAI:
            self.root_client.__class__ = OrjsonOpenAI
        return self

    def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
        probe = {**self._default_params, **kwargs}
        if "response_format" in probe or self._use_responses_api(probe):
            return super()._get_request_payload(input_, stop=stop, **kwargs)
        messages = self._convert_input(input_).to_messages()
        if stop is not None:
            kwargs["stop"] = stop
        payload = {**self._default_params, **kwargs}
        payload["messages"] = self._message_dicts(messages)
        if "max_tokens" in payload:  # what ChatOpenAI does for current models
            payload["max_completion_tokens"] = payload.pop("max_tokens")
        if self.model_name and re.match(r"^o\d", self.model_name):
            payload["messages"] = [
                {**m, "role": "developer"} if m.get("role") == "system" else m for m in payload["messages"]
            ]
        return untyped(payload)

    def _create_chat_result(self, response: Any, generation_info: dict | None = None) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        if not result.generations:
            raise _NoChoices
        choices = (response if isinstance(response, dict) else response.model_dump()).get("choices") or []
        reasoning = _reasoning_of((choices[0].get("message") or {}) if choices else {})
        if reasoning:
            result.generations[0].message.additional_kwargs["reasoning_content"] = reasoning
        return result

    def _convert_chunk_to_generation_chunk(
        self, chunk: dict, default_chunk_class: type, base_generation_info: dict | None
    ) -> ChatGenerationChunk | None:
        """A streamed chunk, with the reasoning the server sends beside the content
        (``reasoning_content`` or ``reasoning``, which the stock client drops) kept in
        ``additional_kwargs["reasoning_content"]``: chunks merge it into the reply's."""
        out = super()._convert_chunk_to_generation_chunk(chunk, default_chunk_class, base_generation_info)
        choices = chunk.get("choices") or []
        if out is not None and choices:
            reasoning = _reasoning_of(choices[0].get("delta") or {})
            if reasoning:
                out.message.additional_kwargs["reasoning_content"] = reasoning
        return out

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        try:
            return super()._generate(*args, **kwargs)
        except _NoChoices:
            pass
        try:
            return super()._generate(*args, **kwargs)
        except _NoChoices:
            raise EmptyReplyError() from None

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        """Chunks as they come; a stream with no choice in it is requested once more.

        Chunks before the first one that carries anything (text, a call, a finish reason) are
        held back, so a retried empty stream adds nothing (not even its usage) to the reply.
        """
        for _attempt in range(2):
            held: list[ChatGenerationChunk] = []
            answered = False
            for chunk in super()._stream(*args, **kwargs):
                if answered:
                    yield chunk
                    continue
                held.append(chunk)
                if _carries_answer(chunk):
                    answered = True
                    yield from held
            if answered:
                return
        raise EmptyReplyError()

    def _message_dicts(self, messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
        with self._converted_lock:
            previous = self._converted
            current: dict[int, tuple[BaseMessage, dict[str, Any]]] = {}
            out: list[dict[str, Any]] = []
            for message in messages:
                key = id(message)
                entry = previous.get(key)
                if entry is None or entry[0] is not message:
                    entry = (message, _to_dict(message))
                current[key] = entry
                out.append(entry[1])
            self._converted = current
        return out


def _reasoning_of(message: Mapping[str, Any]) -> str:
    """The reasoning text of a message or delta (servers name it differently)."""
    value = message.get("reasoning_content") or message.get("reasoning")
    return value if isinstance(value, str) else ""


class _NoChoices(Exception):
    """A completion without choices (raised inside one attempt, see ``_generate``)."""


def _carries_answer(chunk: ChatGenerationChunk) -> bool:
    message = chunk.message
    if message.content or getattr(message, "tool_call_chunks", None):
        return True
    return bool((chunk.generation_info or {}).get("finish_reason"))


def _to_dict(message: BaseMessage) -> dict[str, Any]:
    if isinstance(message, AIMessage):
        return _convert_message_to_dict(_convert_from_v1_to_chat_completions(message))
    return _convert_message_to_dict(message)


def untyped(payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with its large plain-JSON parameters moved into ``extra_body``.

    A caller's own ``extra_body`` keys still win, as they did over typed parameters.
    """
    body: dict[str, Any] = {}
    for key in UNTYPED_KEYS:
        if key in payload:
            body[key] = payload.pop(key)
    payload["messages"] = []  # required by the SDK's signature; the merge replaces it
    payload["extra_body"] = {**body, **(payload.get("extra_body") or {})}
    return payload


class OrjsonOpenAI(openai.OpenAI):
    """``openai.OpenAI`` that serializes JSON request bodies with orjson."""

    def _prepare_options(self, options: Any) -> Any:
        options = super()._prepare_options(options)
        body, extra = options.json_data, options.extra_json
        if options.content is not None or options.files is not None or not isinstance(body, Mapping):
            return options
        merged = {**body, **extra} if isinstance(extra, Mapping) else body
        try:
            content = orjson.dumps(merged)
        except (TypeError, orjson.JSONEncodeError):
            try:  # a lone surrogate (an undecodable byte in a prompt, a name, a tool result)
                content = orjson.dumps(escape_data(merged))
            except (TypeError, orjson.JSONEncodeError):
                return options  # something only the SDK's encoder knows: let it do the whole body
        options.content, options.json_data, options.extra_json = content, None, None
        return options
