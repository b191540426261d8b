"""Sub-agents: child sessions for the ``agent`` tools (sync, background, worktree).

A child is a Session in the same store whose id is ``<parent id>-sub-<call id>``: the same
call always names the same child, so a call retried after a crash re-attaches to it and the
child's own journal keeps every one of its calls exact (nothing runs twice).  Its index row
links it to the parent (parent id, call id) and keeps the request (``agent`` column).

Children run in their own thread, so LangGraph's context variables of the parent run (its
thread id and checkpoint namespace) cannot leak into them.  A child's call that needs a person
pauses the child and bubbles up to the parent (``cairn.graph.session.child_approvals``): a
sync child suspends the parent's ``agent`` call until its calls are decided; a background
child's thread waits for the decisions the parent records.  A child's call left interrupted
by a crash is cancelled (never re-run).  Background children that were running or waiting
when the parent's process died are re-attached by the parent's next run (``reattach``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.graph.core.agent_reports import agent_info, standing, undelivered_reports
from cairn.graph.core.events import Event, SubagentEnd, SubagentEvent, SubagentStart, ToolEnd, ToolStart
from cairn.graph.session import worktree
from cairn.graph.session.budgets import agent_budgets
from cairn.graph.session.waiting import asking_ids, recorded_for
from cairn.tools.agent import AWAITING_AGENT

if TYPE_CHECKING:
    from cairn.graph.session.core import SessionCore

#: Sub-agent session ids are ``<parent id>-sub-<call id>``; listings hide them.
SUBAGENT_MARK = "-sub-"
ACTIVE = ("new", "running", "awaiting_approval")


class SubagentManager:
    """The ``ToolServices.subagents`` host of one parent session."""

    def __init__(self, parent: SessionCore, session_class: type) -> None:
        self.parent = parent
        #: What a child is opened as: the parent's ``Session`` class.
        self.session_class = session_class
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()
        #: Background children whose thread waits for a person's decision right now.
        self._asking: set[str] = set()

    # -- the tools' protocol --------------------------------------------------------------
    def start(self, request: dict[str, Any], ctx: Any) -> dict[str, Any]:
        try:
            child_id = self._prepare(request, ctx.call_id or "agent")
        except worktree.WorktreeError as exc:
            return {"error": str(exc)}
        if request.get("mode") == "background":
            self._spawn(child_id)
            return {"agent_id": child_id, "status": "running", "text": _started(child_id)}
        box: dict[str, Any] = {}
        runner = threading.Thread(target=self._drive, args=(child_id, box), daemon=True)
        runner.start()
        while runner.is_alive():
            runner.join(0.1)
            if ctx.cancel.is_set() and "child" in box:
                box["child"].stop()
        if "error" in box:
            return {"agent_id": child_id, "error": box["error"]}
        if box.get("suspended"):
            return {"agent_id": child_id, "status": "awaiting_approval", AWAITING_AGENT: child_id}
        return self.status(child_id) or {"error": "the sub-agent did not finish"}

    def status(self, agent_id: str) -> dict[str, Any] | None:
        record = self._record(agent_id)
        return standing(self.parent.store, record) if record is not None else None

    def list(self) -> list[dict[str, Any]]:
        return [standing(self.parent.store, r) for r in self.parent.store.sessions.children(self.parent.id)]

    def merge(self, agent_id: str) -> dict[str, Any]:
        record = self._record(agent_id)
        info = agent_info(record) if record is not None else {}
        if not info.get("branch"):
            return {"error": f"{agent_id!r} is not a worktree sub-agent of this session"}
        if record.status in ("new", "running"):
            return {"error": f"{agent_id} is still {record.status}; wait for it to finish"}
        try:
            out = worktree.merge(self.parent.workspace.root, Path(info["worktree"]), info["branch"])
        except worktree.WorktreeError as exc:
            return {"error": str(exc)}
        return {"text": out or f"merged {info['branch']}", "branch": info["branch"]}

    # -- background children ------------------------------------------------------------
    def reattach(self) -> list[str]:
        """Start again the background children a dead process left running (their journal
        adopts finished calls; interrupted ones are cancelled, never re-run)."""
        started = []
        for record in self.parent.store.sessions.children(self.parent.id):
            background = agent_info(record).get("kind") == "background"
            if record.status in ACTIVE and background and self._spawn(record.session_id):
                started.append(record.session_id)
        return started

    def active(self) -> list[str]:
        """Background children not finished (running here, or left running by a dead process)."""
        return [
            r.session_id
            for r in self.parent.store.sessions.children(self.parent.id)
            if r.status in ACTIVE and agent_info(r).get("kind") == "background"
        ]

    def running(self) -> list[str]:
        with self._lock:
            return [cid for cid, t in self._threads.items() if t.is_alive()]

    def wait(self, cancel: threading.Event) -> None:
        """Wait for this process's background children (a stop ends the wait, not them), or
        until one of them waits for a person's decision that nobody has recorded yet."""
        while self.running() and not cancel.is_set():
            if self._asking and self.asking():
                return
            for cid in self.running():
                self._threads[cid].join(0.1)

    def asking(self) -> bool:
        """A background child waits for a decision on one of its calls (in any process)."""
        from cairn.graph.session.child_approvals import undecided, with_child_asks

        return bool(undecided(self.parent, with_child_asks(self.parent, [])))

    def undelivered(self, delivered: list[str]) -> bool:
        return bool(undelivered_reports(self.parent.store, self.parent.id, delivered))

    # -- internals ------------------------------------------------------------------------
    def _record(self, agent_id: str) -> Any:
        record = self.parent.store.sessions.get(agent_id)
        if record is None:
            matches = [
                r for r in self.parent.store.sessions.children(self.parent.id) if agent_id in r.session_id
            ]
            record = matches[0] if len(matches) == 1 else None
        return record if record is not None and record.parent_id == self.parent.id else None

    def _prepare(self, request: dict[str, Any], call_id: str) -> str:
        """Create the child's index row (once: a retried call finds it and re-attaches)."""
        parent = self.parent
        child_id = f"{parent.id}{SUBAGENT_MARK}{call_id}"
        if parent.store.sessions.get(child_id) is not None:
            return child_id
        kind = request.get("mode") or "sync"
        steps, tokens = agent_budgets(parent.settings)
        info: dict[str, Any] = {
            "kind": kind,
            "description": request.get("description", ""),
            "prompt": request.get("prompt", ""),
            "model": request.get("model"),
            "max_steps": request.get("max_steps") or steps,
            "max_tokens": request.get("max_tokens") or tokens,
            # issue 34 hook-in: each sub-agent's money budget ([budget] max_cost_per_agent, else the run's)
            "max_cost": request.get("max_cost") or _agent_max_cost(parent),
        }
        read_only = request.get("read_only")
        info["read_only"] = (kind != "worktree") if read_only is None else bool(read_only)
        workspace = parent.workspace.root
        if kind == "worktree":
            from cairn.checkpoints.location import worktrees_dir

            branch = worktree.safe_branch(request.get("branch_name") or f"cairn/agent-{call_id}")
            path = worktrees_dir() / child_id
            info["base"] = worktree.create(parent.workspace.root, path, branch)
            info.update(branch=branch, worktree=str(path))
            workspace = path
        mode = "plan" if info["read_only"] else ("accept-edits" if kind == "worktree" else parent.mode)
        parent.store.sessions.create(
            child_id,
            workspace=str(workspace),
            mode=mode,
            model=request.get("model") or "",
            parent_id=parent.id,
            call_id=call_id,
            agent=json.dumps(info),
        )
        return child_id

    def _spawn(self, child_id: str) -> bool:
        with self._lock:
            alive = self._threads.get(child_id)
            if alive is not None and alive.is_alive():
                return False
            worker = threading.Thread(target=self._drive, args=(child_id, {}), daemon=True)
            self._threads[child_id] = worker
        worker.start()
        return True

    def _drive(self, child_id: str, box: dict[str, Any]) -> None:
        """Run (or re-attach to) one child until it ends; worktree work is committed on its branch."""
        from cairn.graph.session.child import open_child

        try:
            record = self.parent.store.sessions.get(child_id)
            info = agent_info(record)
            child = open_child(self.parent, record, info, self.session_class)
            box["child"] = child
            forward = self._forwarder(child_id)
            self._emit(SubagentStart(child_id, mode=info.get("kind"), description=info.get("description")))
            if record.status == "new":
                prompt = f"[sub-agent task: {info.get('description', '')}]\n\n{info.get('prompt', '')}"
                result = child.send(prompt, on_event=forward)
            else:
                result = child.continue_(on_event=forward)
            while (
                result.status in ("awaiting_approval", "interrupted") and not child.core.cancel_event.is_set()
            ):
                if not asking_ids(result):
                    result = child.cancel("all", on_event=forward)
                    continue
                recorded = recorded_for(child, asking_ids(result))
                if recorded is not None:  # decided at the parent (in this or another process)
                    result = child.decide(recorded, on_event=forward)
                    child.store.decisions.clear(child.id, list(recorded))
                    continue
                self._emit(SubagentEvent(child_id, "approval_request", calls=asking_ids(result)))
                if info.get("kind") != "background":
                    box["suspended"] = True  # the parent's agent call waits, and its run pauses
                    child.core.close_tools()
                    return
                self._asking.add(child_id)
                try:
                    result = child.waiting.wait(None, on_event=forward)
                finally:
                    self._asking.discard(child_id)
            child.core.close_tools()
            if info.get("branch"):
                path = Path(info["worktree"])
                worktree.commit_all(path, f"cairn sub-agent: {info.get('description') or child_id}")
                info["diff"] = worktree.diff_summary(path, info["base"])
                self.parent.store.sessions.set_agent(child_id, json.dumps(info))
            self._emit(SubagentEnd(child_id, result.status, usage=result.usage))
            if self.parent.hooks_engine is not None:  # -- hooks (issue 32)
                from cairn.graph.session.hooks_run import subagent_stop

                subagent_stop(self.parent, child_id, result)
        except Exception as exc:  # reported to the model as the tool's error
            box["error"] = f"{type(exc).__name__}: {exc}"
            self._emit(SubagentEnd(child_id, "error", error=box["error"]))

    def _emit(self, event: Event) -> None:
        sink = self.parent.event_sink  # new-style: the Session adapted it (``event_callback``)
        if sink is not None:
            try:
                sink(event)
            except Exception:  # a broken display never breaks a sub-agent
                pass

    def _forwarder(self, child_id: str) -> Any:
        """The child's event callback: each of its tool calls reaches the parent's stream."""

        def forward(event: Event) -> None:
            if isinstance(event, ToolStart | ToolEnd):
                self._emit(SubagentEvent.of(child_id, event))

        return forward


def _agent_max_cost(parent: Any) -> float | None:
    config = parent.budget_config
    per_agent = getattr(config, "max_cost_per_agent", None)
    return per_agent if per_agent is not None else parent.max_cost


def _started(child_id: str) -> str:
    return (
        f"Started background sub-agent {child_id}. Its report will arrive as a message when it finishes; "
        "agent_status shows its progress meanwhile."
    )
