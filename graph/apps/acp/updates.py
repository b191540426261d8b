"""cairn's events → ACP ``session/update`` notifications: the one translation.

``translate(event, view)`` takes one of :mod:`cairn.graph.core.events` (as the Session's ``on_event``
receives it) and returns the updates to send, in order.  ``view`` remembers, per editor session, which calls the
editor has been shown (the first update of a call is a ``tool_call``, later ones are
``tool_call_update``) and the live output lines of running commands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import PlanEntry, ToolCallLocation

from cairn.graph.apps.acp import tool_calls
from cairn.graph.core import events as ev

#: Output lines of a running command kept for its live card.
PROGRESS_LINES = 40


@dataclass
class CallView:
    """What one editor session has been shown of its tool calls."""

    workspace: str | Path
    announced: set[str] = field(default_factory=set)
    output: dict[str, list[str]] = field(default_factory=dict)


def translate(event: ev.Event, view: CallView) -> list[Any]:
    """The ``session/update`` payloads for one cairn event (possibly none)."""
    match event:
        case ev.Token(text=text):
            return [helpers.update_agent_message_text(text)] if text else []
        case ev.Thought(text=text):
            return [helpers.update_agent_thought_text(text)] if text else []
        case ev.ToolStart(call=call):
            return [call_update(call, view)]
        case ev.ToolEnd(call=call):
            updates = [call_update(call, view)]
            if call.get("tool_name") in tool_calls.PLAN_TOOLS and call.get("status") == "success":
                plan = plan_update(((call.get("metadata") or {}).get("state") or {}).get("tasks"))
                if plan is not None:
                    updates.append(plan)
            view.output.pop(str(call.get("call_id")), None)
            return updates
        case ev.ToolProgress(call_id=call_id, line=line):
            lines = view.output.setdefault(call_id, [])
            lines.append(line)
            del lines[:-PROGRESS_LINES]
            content = [helpers.tool_content(helpers.text_block("\n".join(lines)))]
            return [helpers.update_tool_call(call_id, status="in_progress", content=content)]
        case (
            ev.Message()
            | ev.Compacted()
            | ev.SubagentStart()
            | ev.SubagentEvent()
            | ev.SubagentEnd()
            | ev.Waiting()
            | ev.DecisionRefused()
            | ev.HookRan()
            | ev.Notification()
        ):
            return []  # a message's tokens were streamed; the rest is not the editor's to show
    return []


def call_update(
    call: dict[str, Any], view: CallView, *, during_approval: bool = False, replay: bool = False
) -> Any:
    """A ``tool_call`` (first sight) or ``tool_call_update`` carrying the call's state."""
    call_id = str(call.get("call_id"))
    cairn_status = str(call.get("status", "pending"))
    fields: dict[str, Any] = {
        "title": tool_calls.title(call),
        "kind": tool_calls.kind(str(call.get("tool_name", ""))),
        "status": tool_calls.status(cairn_status),
        "locations": [ToolCallLocation(**loc) for loc in tool_calls.locations(call, view.workspace)],
        "raw_input": call.get("arguments") or {},
        "content": call_content(call, view, during_approval=during_approval, replay=replay),
    }
    if cairn_status in ("success", "error", "cancelled"):
        fields["raw_output"] = {"status": cairn_status, "output": tool_calls.result_text(call)}
    first = call_id not in view.announced
    view.announced.add(call_id)
    update = (
        helpers.start_tool_call(call_id, fields.pop("title"), **fields)
        if first
        else helpers.update_tool_call(call_id, **fields)
    )
    update.field_meta = {"cairn": {"status": cairn_status, "tool": call.get("tool_name")}}
    return update


def call_content(
    call: dict[str, Any], view: CallView, *, during_approval: bool = False, replay: bool = False
) -> list[Any] | None:
    """Diffs for edits (planned while asking, real once done), the result or error text.

    A replayed edit shows its stored unified diff as text: the file may have changed since."""
    cairn_status = call.get("status")
    content: list[Any] = []
    if cairn_status in ("pending", "awaiting_approval") or during_approval:
        planned = tool_calls.planned_contents(call, view.workspace)
        if planned is not None:
            content.append(helpers.tool_diff_content(planned[0], planned[2], planned[1]))
        elif call.get("preview"):
            content.append(helpers.tool_content(helpers.text_block(str(call["preview"]))))
    elif cairn_status == "success":
        done = None if replay else tool_calls.finished_contents(call)
        if replay and (call.get("metadata") or {}).get("diff"):
            content.append(helpers.tool_content(helpers.text_block(str(call["metadata"]["diff"]))))
        elif done is not None:
            content.append(helpers.tool_diff_content(done[0], done[2], done[1]))
        text = tool_calls.result_text(call)
        if text and done is None:
            content.append(helpers.tool_content(helpers.text_block(text)))
    elif cairn_status in ("error", "cancelled", "interrupted"):
        text = (
            tool_calls.result_text(call)
            if cairn_status != "interrupted"
            else ("interrupted: cairn stopped while this call ran; retry or cancel it")
        )
        content.append(helpers.tool_content(helpers.text_block(text)))
    return content or None


def plan_update(tasks: Any) -> Any | None:
    """The session's task list as a ``plan`` update (``None`` when there is none)."""
    if not isinstance(tasks, list):
        return None
    entries = []
    for task in tasks:
        if not isinstance(task, dict) or not task.get("content", task.get("subject")):
            continue
        state = str(task.get("status", "pending"))
        acp_state = (
            "completed"
            if state in ("done", "completed")
            else ("in_progress" if state == "in_progress" else "pending")
        )
        text = str(task.get("content") or task.get("subject"))
        entries.append(PlanEntry(content=text, priority="medium", status=acp_state))
    return helpers.update_plan(entries)


#: RunResult.status → ACP stop reason (docs/editors.md).
STOP_REASONS = {
    "done": "end_turn",
    "interrupted": "cancelled",
    "incomplete": "max_tokens",
    "max_steps": "max_turn_requests",
    "loop": "max_turn_requests",
    "no_answer": "refusal",
    "awaiting_approval": "cancelled",
}


def stop_reason(status: str, *, cancelled: bool = False) -> str:
    """Why the turn ended, in ACP's words; a turn the editor cancelled is ``cancelled``."""
    return "cancelled" if cancelled else STOP_REASONS.get(status, "end_turn")
