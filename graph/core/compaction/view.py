"""What the model is sent, read from the append-only transcript and the compaction marker.

Compaction never deletes a message.  It appends a *marker* (a SystemMessage carrying the
summary and ``additional_kwargs["cairn_compaction"]``) and records its id in state.  The prompt
is then: system prompt, the first person request, the summary, and the messages from the marker's
``kept_from`` on (markers themselves skipped).  Tool outputs older than ``elide_before`` are
replaced by one line each (cheap relief before a full compaction is needed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cairn.graph.core.messages import is_person_message
from cairn.graph.models.script import COMPACTED_MARK

MARKER_KEY = "cairn_compaction"
_POINTER = re.compile(r"saved whole at (\S+)")
_ELIDED: dict[str, ToolMessage] = {}


def is_marker(message: BaseMessage) -> bool:
    return isinstance(message, SystemMessage) and MARKER_KEY in message.additional_kwargs


def marker_info(message: BaseMessage) -> dict[str, Any]:
    return dict(message.additional_kwargs.get(MARKER_KEY) or {})


def make_marker(summary: str, info: dict[str, Any]) -> SystemMessage:
    return SystemMessage(content=summary, name="compaction", additional_kwargs={MARKER_KEY: info})


def summary_message(marker: BaseMessage) -> HumanMessage:
    """The marker as the model reads it: a user message stating what was summarized."""
    info = marker_info(marker)
    mark = COMPACTED_MARK.format(count=int(info.get("assistant_count", 0)))
    return HumanMessage(
        f"{mark}\nThe earlier part of this session was compacted to fit the context window "
        f"({info.get('summarized', 0)} messages replaced by this summary; cairn still has them).\n\n"
        f"{marker.text}"
    )


@dataclass
class View:
    """The conversation as the model sees it, split into its parts."""

    first: BaseMessage | None
    marker: BaseMessage | None
    body: list[BaseMessage] = field(default_factory=list)

    def messages(self) -> list[BaseMessage]:
        head: list[BaseMessage] = [self.first] if self.first is not None else []
        if self.marker is not None:
            head.append(summary_message(self.marker))
        return head + self.body


def read_view(store: Any, thread_id: str, head: str | None, context: dict[str, Any]) -> View:
    """The sent view at ``head``; reads only the kept tail once a compaction happened."""
    transcript = store.transcript
    marker = _latest_marker(transcript, thread_id, head, context.get("marker"))
    if marker is None:
        history = transcript.read(thread_id, head)
        if history and is_person_message(history[0]):
            view = View(history[0], None, list(history[1:]))
        else:
            view = View(None, None, list(history))
    else:
        kept_from = marker_info(marker).get("kept_from")
        chain = transcript.tail(thread_id, head, stop=lambda m: m.id == kept_from)
        first_text = marker_info(marker).get("first_request")
        first = HumanMessage(first_text) if first_text else None
        view = View(first, marker, [m for m in chain if not is_marker(m)])
    view.body = elide(view.body, context.get("elide_before"))
    return view


def _latest_marker(transcript: Any, thread_id: str, head: str | None, marker_id: str | None) -> Any:
    """The newest compaction marker on the chain of ``head``.

    Usually the one state names; after a rewind or time travel to before it, the newest one
    still on the chain (or none: the whole history is sent again).
    """
    if not head:
        return None
    if marker_id:
        newest = transcript.tail(thread_id, head, stop=lambda m: m.id == marker_id)
        if newest and newest[0].id == marker_id:
            return newest[0]
    history = transcript.read(thread_id, head)
    return next((m for m in reversed(history) if is_marker(m)), None)


def elide(body: list[BaseMessage], before: str | None) -> list[BaseMessage]:
    """Replace tool outputs that come before message ``before`` by one-line summaries."""
    if not before:
        return body
    index = next((i for i, m in enumerate(body) if m.id == before), None)
    if index is None:
        return body
    return [one_line(m) if isinstance(m, ToolMessage) else m for m in body[:index]] + body[index:]


def one_line(message: ToolMessage) -> ToolMessage:
    """The one-line stand-in of an old output (memoized by message id: stored messages never
    change, and the prompt prefix stays byte-identical from call to call)."""
    cached = _ELIDED.get(message.id) if message.id else None
    if cached is not None:
        return cached
    short = _one_line(message)
    if message.id:
        if len(_ELIDED) > 20_000:
            _ELIDED.clear()
        _ELIDED[message.id] = short
    return short


def _one_line(message: ToolMessage) -> ToolMessage:
    text = message.text
    if len(text) <= 200:
        return message
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")[:120]
    pointer = _POINTER.search(text)
    where = f" The whole output is saved at {pointer.group(1)}." if pointer else ""
    content = (
        f"[older output elided to save context: {len(text):,} characters; it began: {first!r}.{where} "
        "Run the tool again if you need it.]"
    )
    return message.model_copy(update={"content": content})
