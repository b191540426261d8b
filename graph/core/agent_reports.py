"""Reading a sub-agent's standing and final report from the store (no Session needed).

Used by the ``agent`` tools (through the session's sub-agent host) and by ``reasoning``, which
delivers finished background children's reports to the parent before its next model call.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from cairn.graph.core.messages import message_text

#: Child statuses after which nothing more happens without a resume.  (A child awaiting
#: approval is not finished: its calls wait at the parent, see ``child_approvals``.)
FINISHED = frozenset(
    {"done", "error", "max_steps", "loop", "interrupted", "incomplete", "no_answer", "budget"}
)


def agent_info(record: Any) -> dict[str, Any]:
    try:
        info = json.loads(record.agent or "{}")
    except ValueError:
        info = {}
    return info if isinstance(info, dict) else {}


def child_values(store: Any, child_id: str) -> dict[str, Any]:
    saved = store.saver.get_tuple({"configurable": {"thread_id": child_id}})
    return dict(saved.checkpoint["channel_values"]) if saved is not None else {}


def standing(store: Any, record: Any) -> dict[str, Any]:
    """Status, counts, last activity and (when finished) the report of one child."""
    info = agent_info(record)
    values = child_values(store, record.session_id)
    counters = values.get("counters") or {}
    last = store.transcript.tail(record.session_id, values.get("head"), stop=lambda m: True) if values else []
    text = message_text(last[-1]) if last and isinstance(last[-1], AIMessage) else ""
    out = {
        "agent_id": record.session_id,
        "call_id": record.call_id,
        "kind": info.get("kind", "sync"),
        "description": info.get("description", record.title),
        "status": record.status,
        "model_calls": counters.get("model_calls", 0),
        "tool_calls": counters.get("tool_calls", 0),
        "tokens": counters.get("tokens_in", 0) + counters.get("tokens_out", 0),
        "last_activity": (text or (last[-1].type if last else ""))[:120],
    }
    for key in ("branch", "worktree", "diff"):
        if info.get(key):
            out[key] = info[key]
    if record.status in FINISHED:
        out["text"] = final_report(record.status, text, values, info)
    return out


def final_report(status: str, text: str, values: dict[str, Any], info: dict[str, Any]) -> str:
    if status == "done":
        report = text or "(the sub-agent gave no answer)"
    elif status == "max_steps":
        why = values.get("pause_reason") or "it used its step budget"
        report = f"(the sub-agent stopped: {why}.) Its last words: {text or '(none)'}"
    else:
        report = f"(the sub-agent stopped: {status}.) {text}".strip()
    if info.get("branch"):
        report += f"\n\nBranch {info['branch']} (worktree {info.get('worktree')}):\n{info.get('diff', '')}"
    return report


def undelivered_reports(store: Any, thread_id: str, delivered: list[str]) -> list[tuple[str, HumanMessage]]:
    """Finished background children of ``thread_id`` whose report the parent has not had yet."""
    out = []
    for record in store.sessions.children(thread_id):
        if record.session_id in delivered or record.status not in FINISHED:
            continue
        if agent_info(record).get("kind") != "background":
            continue
        info = standing(store, record)
        text = (
            f"[background sub-agent {record.session_id} ({info['description']}) finished: "
            f"{record.status}]\n\n{info['text']}"
        )
        # List content: not a person's message (the CLI and run results tell them apart).
        out.append((record.session_id, HumanMessage(content=[{"type": "text", "text": text}])))
    return out
