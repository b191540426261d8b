"""Where to cut a conversation for compaction — a pure function, and the invariants it keeps.

The body (the messages after the system prompt, the first request and any earlier summary) is
split into *units* that never come apart: a person message, an assistant message with the
ToolMessages answering its calls (and the images message that may follow them).  The cut is at a
unit boundary, so no tool call is ever separated from its ToolMessage.  The latest unit, and any
unit holding a call that is pending, awaiting approval or interrupted, are always kept verbatim.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from itertools import accumulate

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage


def unit_starts(body: Sequence[BaseMessage]) -> list[int]:
    """Indices where a unit starts (a cut may only go there)."""
    starts: list[int] = []
    previous: BaseMessage | None = None
    for index, message in enumerate(body):
        follows_tools = isinstance(previous, ToolMessage)
        tool_images = isinstance(message, HumanMessage) and not isinstance(message.content, str)
        if not isinstance(message, ToolMessage) and not (follows_tools and tool_images):
            starts.append(index)
        previous = message
    return starts


def plan_cut(
    body: Sequence[BaseMessage],
    sizes: Sequence[int],
    keep_tokens: int,
    protected_call_ids: Collection[str] = (),
) -> int | None:
    """How many leading messages of ``body`` to summarize (``None``: nothing can be).

    Keeps as many recent units as fit in ``keep_tokens`` (at least the latest one) and never
    summarizes a unit holding a protected call.
    """
    starts = unit_starts(body)
    if len(starts) < 2:
        return None
    max_cut = starts[-1]
    if protected_call_ids:  # (usually none: planned every turn of a long session, so kept cheap)
        for index, message in enumerate(body):
            if isinstance(message, AIMessage) and any(
                c["id"] in protected_call_ids for c in message.tool_calls
            ):
                max_cut = min(max_cut, max(s for s in starts if s <= index))
                break
    cut = max_cut
    # suffix[i]: the tokens of body[i:]
    suffix = [*reversed(list(accumulate(reversed(sizes[: len(body)])))), 0]
    for start in starts:
        if start <= max_cut and suffix[start] <= keep_tokens:
            cut = start
            break
    return cut if cut > 0 else None


def invariant_problems(sent: Sequence[BaseMessage], protected_call_ids: Collection[str] = ()) -> list[str]:
    """What is wrong with a prompt as sent (empty: every invariant holds).

    - every ToolMessage answers a call of the assistant message just before its run of tool
      messages, once (no orphans);
    - every call is answered right after its assistant message, except calls of the last
      assistant message that are still in flight (protected);
    - every protected call is present.
    """
    problems: list[str] = []
    open_ids: set[str] = set()
    seen_calls: set[str] = set()
    last_ai: AIMessage | None = None
    for message in sent:
        if isinstance(message, ToolMessage):
            if message.tool_call_id in open_ids:
                open_ids.discard(message.tool_call_id)
            else:
                problems.append(f"orphan tool message {message.tool_call_id}")
            continue
        if isinstance(message, HumanMessage) and not isinstance(message.content, str) and not open_ids:
            continue  # images returned by the tools above
        if open_ids:
            problems.append(f"unanswered calls {sorted(open_ids)}")
        open_ids = set()
        if isinstance(message, AIMessage):
            last_ai = message
            open_ids = {c["id"] for c in message.tool_calls}
            seen_calls.update(open_ids)
    if open_ids and last_ai is not None:
        in_flight = open_ids & set(protected_call_ids)
        if open_ids - in_flight:
            problems.append(f"unanswered calls {sorted(open_ids - in_flight)}")
    missing = set(protected_call_ids) - seen_calls
    if missing:
        problems.append(f"protected calls dropped {sorted(missing)}")
    return problems
