"""Running a read-only sub-agent for the ``task`` tool.

The sub-agent is a child Session on the same workspace, model and database, in
plan mode, without the ``task`` tool (no recursion).  It cannot ask a person:
any call that would need approval is rejected with a message telling it to stay
read-only.  It runs in a fresh thread so LangGraph's context variables of the
parent run (its thread id and checkpoint namespace) cannot leak into it.
"""

from __future__ import annotations

import threading
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cairn.graph.session.host import SessionHost

SUBAGENT_MAX_STEPS = 30
#: Sub-agent session ids are ``<parent id>-sub-<call id>-<nonce>``; listings hide them.
SUBAGENT_MARK = "-sub-"
NO_APPROVALS = "Sub-agents cannot ask the person: stay read-only and report what you found."


def make_subagent_runner(parent: SessionHost):
    def run(description: str, prompt: str, ctx: Any) -> dict[str, Any]:
        box: dict[str, Any] = {}
        worker = threading.Thread(
            target=_run_child, args=(parent, description, prompt, ctx, box), daemon=True
        )
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
            if ctx.cancel.is_set() and "child" in box:
                box["child"].stop()
        return box.get("report") or {"error": "the sub-agent did not finish"}

    return run


def _run_child(parent: SessionHost, description: str, prompt: str, ctx: Any, box: dict[str, Any]) -> None:
    try:
        child = type(parent)(
            parent.workspace,
            model=parent.model,
            mode="plan",
            max_steps=SUBAGENT_MAX_STEPS,
            context_window=parent.budget.window,
            # A fresh id per attempt: a retried task (after a crash) starts a clean sub-agent.
            session_id=f"{parent.id}{SUBAGENT_MARK}{ctx.call_id or 'task'}-{uuid.uuid4().hex[:6]}",
            _store=parent.store,
            _exclude_tools=("task",),
            _extensions=False,  # the parent's MCP servers are not shared; none are started twice
        )
        box["child"] = child
        result = child.send(f"[sub-agent task: {description}]\n\n{prompt}")
        while result.status == "awaiting_approval" and not ctx.cancel.is_set():
            result = child.reject("all", NO_APPROVALS)
        calls = len(child.tool_calls())
        child.close_tools()
        text = result.text if result.status == "done" else ""
        error = result.error if result.status == "error" else None
        if result.status not in ("done", "error"):
            text = text or f"(the sub-agent stopped: {result.status})"
        box["report"] = {"text": text, "session_id": child.id, "tool_calls": calls, "error": error}
    except Exception as exc:  # reported to the model as the tool's error
        box["report"] = {"error": f"{type(exc).__name__}: {exc}"}
