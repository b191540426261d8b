"""The summary call (a fixed template) and the deterministic fallback when it fails."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cairn.graph.core.messages import message_text
from cairn.graph.models.script import SUMMARY_REQUEST_PREFIX

SECTIONS = ("Goal", "Decisions", "Files touched", "Open problems", "Next steps")

SUMMARY_SYSTEM = f"""\
{SUMMARY_REQUEST_PREFIX}: the older part of the conversation below will be replaced by your
summary, and the agent will continue from it with the recent messages. Write the summary in
exactly these Markdown sections, concise and concrete (names, paths, commands, error messages):

## Goal
What the person asked for, in their words where it matters, and any constraints they set.
## Decisions
What was decided or learned, and why; approaches that were rejected.
## Files touched
Every file read, created or changed, one per line, with what was done to it.
## Open problems
Errors, failing tests and questions not yet resolved.
## Next steps
What remains to do, in order.

Do not call tools. Do not invent anything that is not in the conversation."""

#: One tool output in the summary request is cut to this many characters.
TOOL_CHARS = 2_000
FILE_ARGS = ("file_path", "path", "notebook_path")


def render(messages: Sequence[BaseMessage], previous: str | None) -> str:
    """The part to summarize as plain text (one block per message)."""
    parts: list[str] = []
    if previous:
        parts.append(f"[summary of the part compacted earlier]\n{previous}")
    for message in messages:
        if isinstance(message, ToolMessage):
            text = message.text
            if len(text) > TOOL_CHARS:
                text = text[: TOOL_CHARS // 2] + "\n[...]\n" + text[-TOOL_CHARS // 2 :]
            parts.append(f"[tool result {message.name or ''} {message.tool_call_id}]\n{text}")
        elif isinstance(message, AIMessage):
            calls = "".join(
                f"\n-> {c['name']}({json.dumps(c.get('args') or {})[:300]})" for c in message.tool_calls
            )
            parts.append(f"[assistant]\n{message_text(message)}{calls}")
        elif isinstance(message, HumanMessage):
            parts.append(f"[person]\n{message.text}")
        else:
            parts.append(f"[{message.type}]\n{message.text}")
    return "\n\n".join(parts)


def summary_request(
    messages: Sequence[BaseMessage], previous: str | None, focus: str | None, max_chars: int
) -> list[BaseMessage]:
    text = render(messages, previous)
    if len(text) > max_chars:  # keep the newest part; the earlier summary leads the text
        text = "[...older part cut to fit...]\n" + text[-max_chars:]
    ask = "Summarize the conversation above in the five sections."
    if focus:
        ask += f" Pay particular attention to: {focus}"
    return [SystemMessage(SUMMARY_SYSTEM), HumanMessage(f"{text}\n\n---\n{ask}")]


def call_summary(model: Any, request: list[BaseMessage]) -> str | None:
    """The model's summary, or None when the call fails or the answer is empty."""
    try:
        reply = model.invoke(request)
    except Exception:
        return None
    text = message_text(reply) if isinstance(reply, AIMessage) else str(getattr(reply, "content", ""))
    return text.strip() or None


def fallback_summary(messages: Sequence[BaseMessage], previous: str | None, first_request: str | None) -> str:
    """A summary built without a model: deterministic, from the messages themselves."""
    asks = [m.text for m in messages if isinstance(m, HumanMessage) and isinstance(m.content, str)]
    files: dict[str, set[str]] = {}
    problems: list[str] = []
    decisions: list[str] = []
    for message in messages:
        if isinstance(message, AIMessage):
            text = message_text(message).strip()
            if text:
                decisions.append(text.splitlines()[0][:200])
            for call in message.tool_calls:
                args = call.get("args") or {}
                path = next((args[k] for k in FILE_ARGS if isinstance(args.get(k), str)), None)
                if path:
                    files.setdefault(path, set()).add(call["name"])
        elif isinstance(message, ToolMessage) and message.status == "error":
            problems.append(
                f"{message.name or 'tool'}: {message.text.splitlines()[0][:200] if message.text else ''}"
            )
    goal = [first_request or "", *[a[:300] for a in asks if a != first_request][-3:]]
    touched = [f"- {p} ({', '.join(sorted(t))})" for p, t in sorted(files.items())]
    lines = ["## Goal", *[g for g in goal if g]]
    lines += ["## Decisions", *([f"- {d}" for d in decisions[-8:]] or ["-"])]
    lines += ["## Files touched", *(touched or ["-"])]
    lines += ["## Open problems", *([f"- {p}" for p in problems[-5:]] or ["-"])]
    lines += ["## Next steps", f"- continue from: {decisions[-1]}" if decisions else "- continue the task"]
    text = "\n".join(lines)
    if previous:
        text = f"{text}\n\n(Summary of the part compacted before that:)\n{previous}"
    return text + "\n\n(This summary was built without the model; the summary call failed.)"


def state_notes(tasks: list[dict[str, Any]] | None, files_read: list[str]) -> str:
    """What the summary must carry whatever the model wrote: the task list and the files read."""
    notes: list[str] = []
    if tasks:
        items = [f"- [{t.get('status', 'pending')}] {t.get('content') or t.get('title') or t}" for t in tasks]
        notes.append("## Current task list (todo_write)\n" + "\n".join(items))
    if files_read:
        shown = files_read[:50] + ([f"... and {len(files_read) - 50} more"] if len(files_read) > 50 else [])
        notes.append(
            "## Files read this session (edits to them are allowed)\n" + "\n".join(f"- {p}" for p in shown)
        )
    return "\n\n".join(notes)
