"""What a run tells its surfaces as it happens: one frozen dataclass per kind of event.

The graph's nodes emit them through ``AgentContext.emit(event)``; the Session emits the
waiting and sub-agent ones.  ``ALL_EVENTS`` is the one list of what exists: the CLI renderer,
the headless writer and the notebook cell stream dispatch on these types with ``match``, and
``tests/graph/test_events.py`` fails when a class is added that one of them neither handles
nor lists as ignored, or when code emits anything that is not one of these classes.

Each class's ``kind`` is the event's old string name and its fields are the old payload's
keys, so ``event.payload()`` is exactly the dict callbacks got before (``stream-json`` prints
``{"type": kind, **payload}``, unchanged).

Callbacks (``Session.send(on_event=...)``, ``continue_``, ``decide``, ``wait``, ``compact``):

- a callable that accepts one positional argument gets the event object (new style);
- a callable of two, ``(kind, payload)``, gets the old shape: ``event_callback`` wraps it, so
  code written for earlier versions keeps working.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

__all__ = [
    "ALL_EVENTS",
    "BY_KIND",
    "Compacted",
    "DecisionRefused",
    "Event",
    "EventCallback",
    "HookRan",
    "LegacyEventCallback",
    "Message",
    "Notification",
    "OnEvent",
    "SubagentEnd",
    "SubagentEvent",
    "SubagentStart",
    "Thought",
    "Token",
    "ToolEnd",
    "ToolProgress",
    "ToolStart",
    "Waiting",
    "event_callback",
    "from_payload",
]

#: Field metadata: kept on the object, left out of ``payload()``.
_NOT_IN_PAYLOAD = {"payload": False}


@dataclass(frozen=True)
class Event:
    """Base of every event; ``kind`` is the name surfaces and stream-json know it by."""

    kind: ClassVar[str] = ""
    #: Fields that the old payload left out when they had no value (``None``).
    optional: ClassVar[tuple[str, ...]] = ()

    def payload(self) -> dict[str, Any]:
        """The event as the old ``(kind, payload)`` callbacks got it: fields in order."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.metadata.get("payload", True) and not (value is None and f.name in self.optional):
                out[f.name] = value
        return out


@dataclass(frozen=True)
class Token(Event):
    """A piece of the model's text while it streams (``stream=True`` only)."""

    kind: ClassVar[str] = "token"
    text: str


@dataclass(frozen=True)
class Thought(Event):
    """A piece of the reasoning a model shows before its answer, as it streams (where the
    endpoint sends it: ``reasoning_content``); kept in the reply, never sent back as text."""

    kind: ClassVar[str] = "thought"
    text: str


@dataclass(frozen=True)
class Message(Event):
    """A model turn ended: its whole text, how many tool calls it made, their ids in its order."""

    kind: ClassVar[str] = "message"
    text: str
    tool_calls: int
    call_ids: list[str]


@dataclass(frozen=True)
class ToolStart(Event):
    """A tool call starts running; ``call`` is its ``ToolCallInfo.to_state()`` dict."""

    kind: ClassVar[str] = "tool_start"
    call: dict[str, Any]


@dataclass(frozen=True)
class ToolProgress(Event):
    """A line of a running call's output (shell commands)."""

    kind: ClassVar[str] = "tool_progress"
    call_id: str
    line: str


@dataclass(frozen=True)
class ToolEnd(Event):
    """A tool call ended (ran, or was refused, denied or cancelled before it ran)."""

    kind: ClassVar[str] = "tool_end"
    call: dict[str, Any]


@dataclass(frozen=True)
class Compacted(Event):
    """A compaction ran (older turns became a summary), or a manual one found nothing to do."""

    kind: ClassVar[str] = "compacted"
    trigger: str | None
    source: str | None = None
    summarized: int = 0
    kept: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    focus: str | None = None
    #: True when nothing was old enough to summarize; ``reason`` says so.
    skipped: bool = False
    reason: str | None = None

    def payload(self) -> dict[str, Any]:
        if self.skipped:  # the old dict of a skipped compaction: these three keys, in this order
            return {"skipped": True, "trigger": self.trigger, "reason": self.reason}
        return {k: v for k, v in super().payload().items() if k not in ("skipped", "reason")}


@dataclass(frozen=True)
class SubagentStart(Event):
    """A sub-agent (child session ``agent_id``) starts or is re-attached to."""

    kind: ClassVar[str] = "subagent_start"
    agent_id: str
    mode: str | None
    description: str | None


@dataclass(frozen=True)
class SubagentEvent(Event):
    """Something a sub-agent did: one of its tool calls started or ended (``child`` is that
    event), or it asks for approval of ``calls`` (``event == "approval_request"``)."""

    kind: ClassVar[str] = "subagent_event"
    optional: ClassVar[tuple[str, ...]] = ("call", "calls")
    agent_id: str
    #: The child's event kind, or ``"approval_request"``.
    event: str
    call: dict[str, Any] | None = None
    calls: list[str] | None = None
    #: The child's own event object (``ToolStart``/``ToolEnd``); not part of the payload.
    child: Event | None = field(default=None, repr=False, compare=False, metadata=_NOT_IN_PAYLOAD)

    @classmethod
    def of(cls, agent_id: str, child: ToolStart | ToolEnd) -> SubagentEvent:
        return cls(agent_id, child.kind, call=child.call, child=child)


@dataclass(frozen=True)
class SubagentEnd(Event):
    """A sub-agent ended: its status and usage, or ``status="error"`` and the error."""

    kind: ClassVar[str] = "subagent_end"
    optional: ClassVar[tuple[str, ...]] = ("usage", "error")
    agent_id: str
    status: str
    usage: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class Waiting(Event):
    """A ``wait`` (``--wait``) starts waiting for decisions on ``call_ids`` recorded elsewhere."""

    kind: ClassVar[str] = "waiting"
    session_id: str
    call_ids: list[str]
    timeout: float | None


@dataclass(frozen=True)
class DecisionRefused(Event):
    """Decisions recorded for a waiting session were refused (e.g. edited arguments invalid)."""

    kind: ClassVar[str] = "decision_refused"
    session_id: str
    error: str


@dataclass(frozen=True)
class HookRan(Event):
    """A hook ran (``cairn.graph.core.hooks``): its record (event, hook, source, exit code, decision,
    reason, error ...) and, for the tool events, the call it belongs to."""

    kind: ClassVar[str] = "hook"
    record: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None

    def payload(self) -> dict[str, Any]:
        """The record's keys at the top level (``call_id`` first when there is one)."""
        return ({"call_id": self.call_id} if self.call_id is not None else {}) | dict(self.record)


@dataclass(frozen=True)
class Notification(Event):
    """Something a person should notice (a run waits for approval, finished or failed)."""

    kind: ClassVar[str] = "notification"
    notification_type: str
    message: str


#: Every kind of event, the one list of what exists.
ALL_EVENTS: tuple[type[Event], ...] = (
    Token,
    Thought,
    Message,
    ToolStart,
    ToolProgress,
    ToolEnd,
    Compacted,
    SubagentStart,
    SubagentEvent,
    SubagentEnd,
    Waiting,
    DecisionRefused,
    HookRan,
    Notification,
)
BY_KIND: dict[str, type[Event]] = {cls.kind: cls for cls in ALL_EVENTS}

#: A new-style callback: gets the event object.
EventCallback = Callable[[Event], None]
#: The old callback shape, still accepted where an ``on_event`` is taken.
LegacyEventCallback = Callable[[str, dict[str, Any]], None]
#: What ``Session.send(on_event=...)`` and the other run methods accept: either shape.
OnEvent = EventCallback | LegacyEventCallback


def from_payload(kind: str, payload: dict[str, Any]) -> Event:
    """The event object for an old ``(kind, payload)`` pair (``KeyError``: unknown kind)."""
    cls = BY_KIND[kind]
    if cls is HookRan:
        return HookRan({k: v for k, v in payload.items() if k != "call_id"}, payload.get("call_id"))
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in payload.items() if k in names}
    if cls is SubagentEvent and values.get("event") in (ToolStart.kind, ToolEnd.kind):
        values["child"] = BY_KIND[values["event"]](call=values.get("call") or {})  # type: ignore[call-arg]
    return cls(**values)


class _Legacy:
    """Adapts a ``(kind, payload)`` callback to take event objects."""

    def __init__(self, callback: LegacyEventCallback) -> None:
        self.callback = callback

    def __call__(self, event: Event) -> None:
        self.callback(event.kind, event.payload())


def event_callback(callback: OnEvent | None) -> EventCallback | None:
    """``callback`` as a new-style callback: as is when it takes one argument, else adapted.

    Idempotent (an adapted callback takes one argument).  A callable whose signature cannot be
    read is taken to be old-style, as every callback was before events had types.
    """
    if callback is None or _takes_one(callback):
        return callback  # type: ignore[return-value]
    return _Legacy(callback)  # type: ignore[arg-type]


def _takes_one(callback: Callable[..., Any]) -> bool:
    try:
        inspect.signature(callback).bind(None)
    except (TypeError, ValueError):
        return False
    return True
