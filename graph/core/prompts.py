"""The system prompt and the session context that goes with it.

The system prompt is byte-identical for every session in a mode and profile: no path, date or
note in it.  With the tool schemas right after it, that is the prefix llama.cpp, vLLM and hosted
prompt caches can reuse from turn to turn and from one session to the next.  What differs per
session (workspace, OS, date, project instructions, memory) is the *session context*, sent after
the person's text in the first user message of every request (``with_session_context``) and never
stored.  After, not before: small models (Qwen2.5-Coder-1.5B on llama.cpp) that saw the block at
the top of the message echoed it, and then the tool schemas, until the client timed out; with the
person's request first they answered it (issue 31).
"""

from __future__ import annotations

import platform
import re
from collections.abc import Collection
from datetime import date
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

INSTRUCTION_FILES = ("AGENTS.md", "CONTEXT.md")
#: What the nudge after an empty reply quotes of each tool result (the last few of the run).
NUDGE_RESULT_CHARS = 600
NUDGE_RESULTS = 3
MAX_INSTRUCTION_CHARS = 20_000

_MODE_TEXT = {
    "default": "Read-only actions run at once; edits, commands that change things and web fetches "
    "are shown to the person, who approves or rejects them.",
    "accept-edits": "File edits inside the workspace run without asking; commands and web fetches "
    "are shown to the person for approval.",
    "plan": "PLAN MODE: you may only read and search. Do not try to edit files or run commands "
    "that change anything; investigate and then present a plan for the person to approve.",
    "bypass": "Actions run without asking, except those the policy forbids outright.",
}

_LEAN_GUIDANCE = """\
You are cairn, a coding agent in the person's workspace. Look with read_file, glob and grep; change
files with edit_file (exact old_string) or write_file; run commands with bash. Asked where something
is, grep or glob for it first; never guess a path. Read a file before editing it. Never repeat a
call that worked. When done, answer briefly with what you found or did."""

_GUIDANCE = """\
You are cairn, a careful coding agent working in the person's workspace.

How to work:
- Look before you change: use read_file, ls, glob and grep to understand the code first.
- Prefer edit_file for changes to existing files (exact old_string, unique, with enough context);
  use write_file for new files. Read a file before you edit or overwrite it.
- Use bash for running tests, builds and git. Keep commands non-interactive. Long-running servers
  go in the background (run_in_background) and are checked with bash_output.
- When a call is rejected, read the person's message and adapt; do not retry the same call.
- When you are done, answer briefly: what you found or changed, and how you checked it.
- Paths are relative to the workspace root unless absolute."""


def instruction_files(workspace: Path) -> str:
    parts: list[str] = []
    for name in INSTRUCTION_FILES:
        path = workspace / name
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if len(text) > MAX_INSTRUCTION_CHARS:
                text = text[:MAX_INSTRUCTION_CHARS] + "\n[... truncated ...]"
            parts.append(f"## {name}\n{text.strip()}")
    return "\n\n".join(parts)


def build_system_prompt(mode: str, *, profile: str = "full") -> str:
    """The constant part: guidance and the approval mode (nothing that differs between sessions)."""
    guidance = _LEAN_GUIDANCE if profile == "lean" else _GUIDANCE
    return f"{guidance}\n\nApproval mode: {mode}. {_MODE_TEXT.get(mode, '')}"


def build_session_context(
    workspace: Path,
    *,
    today: date | None = None,
    os_name: str | None = None,
    memory: str = "",
    extensions: str = "",
    profile: str = "full",
) -> str:
    """What this session's requests carry after the person's text in the first user message
    (``""``: nothing to carry).

    ``extensions`` (skills, custom commands, deferred tools) comes last; it differs per workspace
    and configuration, so it stays out of the constant system prompt.  The lean profile leaves
    out the environment section: Qwen2.5-Coder-1.5B built invented paths on the absolute
    workspace path (``/tmp/…/ws/src/parser/mod.rs``) and echoed the section as its reply; paths
    relative to the workspace are all its tools need (issue 31)."""
    sections = []
    if profile != "lean":
        today = today or date.today()
        os_name = os_name or f"{platform.system()} {platform.release()}".strip()
        sections.append(f"# Environment\nWorkspace: {workspace}\nOS: {os_name}\nDate: {today.isoformat()}")
    project = instruction_files(workspace)
    if project:
        sections.append(f"# Project instructions\n{project}")
    if memory.strip():
        sections.append(f"# Notes you saved in earlier sessions (memory tool)\n{memory.strip()}")
    if extensions.strip():
        sections.append(extensions.strip())
    if not sections:
        return ""
    return "<session-context>\n" + "\n\n".join(sections) + "\n</session-context>"


def with_session_context(messages: list[BaseMessage], context: str | None) -> list[BaseMessage]:
    """``messages`` with ``context`` after the person's text in the first user message (a copy;
    not stored).  The first user message keeps its place, so the prefix before it (system prompt,
    tools) stays the same for every session and every turn."""
    if not context:
        return messages
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                merged: Any = f"{content}\n\n{context}"
            else:
                merged = [*content, {"type": "text", "text": context}]
            return [*messages[:index], message.model_copy(update={"content": merged}), *messages[index + 1 :]]
    return [HumanMessage(context), *messages]


def _request(messages: list[BaseMessage]) -> str:
    """The person's latest request (without the session context)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and isinstance(message.content, str):
            return message.content.split("\n\n<session-context>", 1)[0].strip()
    return ""


def answered_without_looking(messages: list[BaseMessage], reply: AIMessage) -> bool:
    """A final answer (text, no call) when no tool has been called since the person's request.

    Small models answer questions about the workspace from imagination: asked for a value in
    settings.toml, Qwen2.5-Coder-1.5B answered "10" (the file says 7), or explained how the person
    could grep for it, without one call (issue 31's runs).  ``reasoning`` asks once more
    (``look_first_nudge``) when the lean profile is on."""
    if reply.tool_calls or reply.invalid_tool_calls:
        return False
    for message in reversed(messages):
        if isinstance(message, ToolMessage) or (isinstance(message, AIMessage) and message.tool_calls):
            return False
        if isinstance(message, HumanMessage):
            return True
    return False


def look_first_nudge(messages: list[BaseMessage]) -> str:
    """What a model that answered without calling any tool is told (once), in place of its answer.

    Measured on the packaged 1.5B model with round one's request: told after its own answer
    ("You answered without calling any tool ..."), it repeated the answer or denied the file
    existed (2 of 2); this message instead of its answer got a ``read_file`` call."""
    return _with_request(
        messages,
        "Do not answer from memory: call a tool first (read_file for a file the request names; "
        "grep or glob to find something), then answer from what it returns.",
    )


def gave_up_after_error(messages: list[BaseMessage], reply: AIMessage) -> str | None:
    """The error a final answer (text, no call) came right after, if the last tool round failed.

    Small models stop at the first failed call and explain the error to the person instead of
    fixing the call: a grep on an invented path, an edit with identical strings, a call that was
    not valid JSON (5 of the 8 failed runs of issue 31's fifth round).  ``reasoning`` asks once
    more (``after_error_nudge``) when the lean profile is on."""
    if reply.tool_calls or reply.invalid_tool_calls:
        return None
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            return None
        if message.status == "error":
            text = message.content if isinstance(message.content, str) else str(message.content)
            return " ".join(text.split())[:NUDGE_RESULT_CHARS]
    return None


def after_error_nudge(messages: list[BaseMessage], error: str) -> str:
    """What a model that ended its run on a failed call is told (once per model turn), in place
    of its answer: the error, to fix the call rather than explain it, and the request."""
    return _with_request(
        messages,
        f"Your last tool call failed: {error}",
        "Do not stop and do not explain the error: fix the call (a path relative to the workspace, "
        "the right arguments) or try another tool, then finish the request.",
    )


#: Words of a request that asks for a change in the workspace (not for an answer).
_CHANGE_ASKED = re.compile(
    r"\b(fix|create|write|add|change|edit|update|rename|remove|delete|replace|implement|append|insert)\b",
    re.IGNORECASE,
)


def change_not_made(messages: list[BaseMessage], reply: AIMessage, edit_tools: Collection[str]) -> bool:
    """A final answer to a request that asks for a change when no file edit since the request
    succeeded.

    Qwen2.5-Coder-1.5B read ``parity.py``, then explained the one-character fix to the person and
    stopped; it said it had created ``CHANGELOG.md`` after a grep (issue 31's sixth and seventh
    rounds).  ``reasoning`` asks once more (``change_nudge``) when the lean profile is on."""
    if reply.tool_calls or reply.invalid_tool_calls or not _CHANGE_ASKED.search(_request(messages)):
        return False
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and message.name in edit_tools and message.status != "error":
            return False
        if isinstance(message, HumanMessage) and isinstance(message.content, str):
            return True
    return True


def change_nudge(messages: list[BaseMessage]) -> str:
    """What a model that answered a request for a change without making it is told, in place of
    its answer."""
    return _with_request(
        messages,
        "Nothing has been changed yet, and the request asks for a change: make it now with edit_file "
        "(or write_file for a new file), then answer in one sentence.",
    )


def _with_request(messages: list[BaseMessage], *lines: str) -> str:
    """A nudge: ``lines``, then the person's request again (small models lose the thread)."""
    question = _request(messages)
    return "\n".join([*lines, f"The request: {question}"] if question else lines)


def empty_reply_nudge(messages: list[BaseMessage]) -> str:
    """What a model that answered with nothing is told (once; issue 31): the person's question
    again and what this run's tools found, so a small model that lost the thread can answer."""
    question, found = "", []
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and len(found) < NUDGE_RESULTS:
            text = message.content if isinstance(message.content, str) else str(message.content)
            found.append(f"- {message.name or 'tool'}: {' '.join(text.split())[:NUDGE_RESULT_CHARS]}")
        elif isinstance(message, HumanMessage) and isinstance(message.content, str):
            question = message.content.split("\n\n<session-context>", 1)[0].strip()
            break
    lines = ["Your last reply was empty. Answer the person's request now, in a few sentences."]
    if question:
        lines.append(f"The request: {question}")
    if found:
        lines.append("What the tools found (latest first):")
        lines += found
    lines.append("If you still need to look something up, call a tool; otherwise answer in text.")
    return "\n".join(lines)
