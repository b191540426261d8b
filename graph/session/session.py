"""The Session API: how scripts, notebooks, the CLI and tests drive cairn.

    from cairn import Session
    s = Session("path/to/repo", model="script:demo.json")
    r = s.send("fix the failing test")
    if r.status == "awaiting_approval":
        r = s.approve()          # or s.reject(call_id, "use pathlib"), s.edit(...), s.decide({...})

Every call is synchronous and safe inside a running event loop (a Jupyter
cell): the graph runs on the calling thread with sync I/O and never touches
asyncio.  ``asend``/``acontinue`` run the same work in a worker thread.

``Session`` is a facade: the work is done by the collaborators it owns, reachable as attributes
(``session.approvals``, ``session.rewinds``, ``session.waiting``, ``session.runs``,
``session.extensions``, ``session.subagents``) over one shared ``session.core``
(``cairn.graph.session.core``); ``cairn.graph.session.builder`` makes them.  Names kept for
members that moved (``session.redo`` for ``session.rewinds.redo`` ...) are ``Alias``es.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from langchain_core.messages import BaseMessage

from cairn.checkpoints import open_store
from cairn.graph.core.events import EventCallback, event_callback
from cairn.graph.core.state import ToolCallInfo
from cairn.graph.session.alias import Alias
from cairn.graph.session.archive import Archive
from cairn.graph.session.builder import MODES, SessionOptions, build_parts
from cairn.graph.session.errors import SessionError
from cairn.graph.session.result import RunResult
from cairn.graph.session.rewind_result import RewindResult
from cairn.tools import Workspace


class Session:
    """One agent conversation in one workspace, persisted under ``session.id``.

    ``Session(workspace, **options)``: the options are the fields of
    ``cairn.graph.session.builder.SessionOptions`` (``model``, ``db``, ``mode``, ``tools`` ...).
    """

    #: Where ``stream=True`` without ``on_event`` sends events. ``None``: the caller shows them.
    #: Inside a Jupyter kernel the notebook package sets it to stream into the cell
    #: (``cairn.graph.apps.notebook.connect``, called by ``from cairn import Session``).
    default_event_sink: ClassVar[Callable[[], EventCallback | None] | None] = None

    # Documented names of members that live on the collaborators (``cairn.graph.session.alias``).
    mode = Alias("core.mode", settable=True)
    recovered = Alias("rewinds.recovered", settable=True)
    redo = Alias("rewinds.redo")
    undo_call = Alias("rewinds.undo_call")
    undo_problem = Alias("rewinds.undo_problem")
    rewind_points = Alias("rewinds.points")
    recover_rewinds = Alias("rewinds.recover")
    wait = Alias("waiting.wait")
    record_decisions = Alias("approvals.record")
    mcp_status = Alias("extensions.status")
    project_mcp_pending = Alias("extensions.project_pending")
    approve_project_mcp = Alias("core.approve_project_mcp")
    sandbox_report = Alias("core.sandbox_report")
    checkpoints = Alias("archive.checkpoints")
    fork = Alias("archive.fork")
    export = Alias("archive.export")
    context_window = Alias("core.context_window")
    rules = Alias("core.rules")
    model = Alias("core.model")
    settings = Alias("core.settings")

    def __init__(self, workspace: str | Any = ".", **options: Any) -> None:
        parts = build_parts(type(self), workspace, SessionOptions(**options))
        self.core = parts.core
        self.runs = parts.runs
        self.approvals = parts.approvals
        self.waiting = parts.waiting
        self.rewinds = parts.rewinds
        self.archive = Archive(parts.core, type(self))
        self.extensions = parts.core.extensions
        self.subagents = parts.core.subagents
        self.id = parts.core.id
        self.workspace = parts.core.workspace
        self.store = parts.core.store

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def resume(
        cls,
        session_id: str,
        *,
        db: str | None = None,
        model: Any = None,
        mode: str | None = None,
        **options: Any,
    ) -> Session:
        """Reopen a stored session (in this or a new process). Short id prefixes work.

        ``options``: as for ``Session(...)`` (``tools``, ``max_steps``, ``context_window``,
        ``mcp_servers``, ``mcp_config``, ``trust_project_mcp``, ``defer_threshold`` ...); the
        workspace, the model and the mode default to the stored ones.
        """
        store = open_store(db)
        record, why = store.sessions.resolve(session_id)
        if record is None:
            store.close()
            raise SessionError(f"{why} matching {session_id!r} in {store.location}")
        session = cls(
            record.workspace,
            model=model if model is not None else (record.model or None),
            mode=mode or record.mode,
            session_id=record.session_id,
            _store=store,
            **options,
        )
        try:
            session.rewinds.recovered = session.rewinds.recover()
        except SessionError:  # another process is running the session: it will recover
            pass
        return session

    @staticmethod
    def list(db: str | None = None, workspace: str | None = None) -> list[dict[str, Any]]:
        store = open_store(db)
        try:
            root = str(Workspace(workspace).root) if workspace is not None else None
            return [r.to_dict() for r in store.sessions.list(root)]
        finally:
            store.close()

    # -- conversation ------------------------------------------------------------------------
    def send(
        self,
        text: str,
        *,
        stream: bool = False,
        on_event: EventCallback | None = None,
        wait: bool = False,
        wait_timeout: float | None = None,
    ) -> RunResult:
        """Send a message and run until the agent is done or needs a person.

        ``wait=True``: on a pause for approval, wait (up to ``wait_timeout`` seconds) for
        decisions recorded by another process (``cairn decide``, ``record_decisions``) and
        continue with them here (see ``cairn.graph.session.waiting``).
        """
        return self.runs.send(text, stream, on_event, self._then_wait(wait, wait_timeout, stream, on_event))

    def continue_(
        self,
        *,
        stream: bool = False,
        on_event: EventCallback | None = None,
        wait: bool = False,
        wait_timeout: float | None = None,
    ) -> RunResult:
        """Continue a paused or crashed run without a new message (recovery happens here).

        Decisions recorded by another process for the paused calls are applied.
        """
        if self.core.snapshot().interrupts:
            return self.waiting.answer_recorded(
                stream=stream, on_event=on_event, wait=wait, wait_timeout=wait_timeout
            )
        return self.runs.resume_run(stream, on_event, self._then_wait(wait, wait_timeout, stream, on_event))

    async def asend(self, text: str, **kwargs: Any) -> RunResult:
        return await asyncio.to_thread(self.send, text, **kwargs)

    async def acontinue(self, **kwargs: Any) -> RunResult:
        return await asyncio.to_thread(self.continue_, **kwargs)

    def stop(self) -> None:
        """Ask the running call/stream to stop (what Ctrl-C does): tools stop, calls become interrupted.

        The stop holds until the current run ends, so one asked just before a run starts (Ctrl-C
        right after a send) stops that run; with no run going, it applies to the next one.
        """
        self.runs.stop()

    def _then_wait(
        self, wait: bool, timeout: float | None, stream: bool, on_event: EventCallback | None
    ) -> Callable[[RunResult], RunResult] | None:
        """With ``wait``: what a run does with its result before it lets the session go."""
        if not wait:
            return None
        return lambda result: self.waiting.until_decided(
            result, timeout=timeout, stream=stream, on_event=on_event
        )

    # -- decisions ------------------------------------------------------------------------
    def approve(
        self,
        call_id: str = "all",
        *,
        always: bool = False,
        sandbox: str | None = None,
        network: list[str] | None = None,
        **kw: Any,
    ) -> RunResult:
        """Approve (``always``: and allow calls like it for the session).  ``sandbox="off"`` runs
        an approved shell command without the OS sandbox (otherwise: workspace-write);
        ``network=["pypi.org", ...]`` lets it reach those domains through cairn's egress proxy."""
        return self.approvals.approve(call_id, always=always, sandbox=sandbox, network=network, **kw)

    def reject(self, call_id: str = "all", message: str = "", **kw: Any) -> RunResult:
        return self.approvals.reject(call_id, message, **kw)

    def edit(self, call_id: str, args: Mapping[str, Any], **kw: Any) -> RunResult:
        return self.approvals.edit(call_id, args, **kw)

    def retry(self, call_id: str = "all", **kw: Any) -> RunResult:
        return self.approvals.retry(call_id, **kw)

    def cancel(self, call_id: str = "all", **kw: Any) -> RunResult:
        return self.approvals.cancel(call_id, **kw)

    def decide(
        self, decisions: Mapping[str, Any], *, stream: bool = False, on_event: EventCallback | None = None
    ) -> RunResult:
        """Several decisions at once: ``{call_id: "approve" | "always" | "reject" | {"reject": msg} |
        {"edit": args} | "retry" | "cancel" | {"action": "approve", "sandbox": "off"}}``. The run
        continues once every gated call is decided."""
        return self.approvals.decide(decisions, stream=stream, on_event=on_event)

    def rewind(
        self,
        call_id: str | None = None,
        *,
        turn: int | None = None,
        code: bool = True,
        conversation: bool = True,
        dry_run: bool = False,
        force: bool = False,
    ) -> RewindResult:
        """Return the workspace and/or the conversation to just before ``call_id`` or turn ``turn``
        (``session.rewinds`` has redo and per-call undo)."""
        return self.rewinds.rewind(
            call_id, turn=turn, code=code, conversation=conversation, dry_run=dry_run, force=force
        )

    # -- inspection -------------------------------------------------------------------------
    def pending(self) -> list[ToolCallInfo]:
        """Calls waiting for a person (awaiting_approval or interrupted), sub-agents' included
        (ids ``<agent call>/<call>``, with ``agent_id`` and ``agent`` set)."""
        return self.runs.pending()

    def tool_calls(self) -> list[ToolCallInfo]:
        """Every call of the session with its lifecycle status, in the order the model made them."""
        from cairn.graph.core.calllog import session_tool_calls

        return session_tool_calls(self.store, self.id, self.core.snapshot().values)

    def history(self, *, sent: bool = False) -> list[BaseMessage]:
        """The whole transcript (compactions appear as ``compaction`` system messages), or with
        ``sent=True`` what the model is sent now: system prompt, first request, summary, recent
        turns, old outputs elided."""
        values = self.core.snapshot().values
        if not sent:
            return self.store.transcript.read(self.id, values.get("head"))
        from langchain_core.messages import SystemMessage

        from cairn.graph.core.compaction.prepare import prepare_prompt
        from cairn.graph.session.runs import make_context

        ctx = make_context(self.core, False, None)
        system = [SystemMessage(ctx.system_prompt(self.mode))] if ctx.system_prompt is not None else []
        return prepare_prompt(values, ctx, values.get("head"), system).messages

    def compact(self, focus: str | None = None, *, on_event: EventCallback | None = None) -> dict[str, Any]:
        """Compact now (what ``/compact [focus]`` does): older turns become a summary.

        Returns the compaction's record (``summarized``, ``tokens_before``, ``tokens_after``,
        ``source`` model|fallback...) or ``{"skipped": True, ...}`` when there is nothing old
        enough to summarize.  Calls awaiting approval are asked again afterwards, unchanged.
        """
        from cairn.graph.session.compact import run_manual_compaction

        sink = type(self).default_event_sink
        if on_event is None and sink is not None:
            on_event = sink()
        return run_manual_compaction(self.core, focus, event_callback(on_event))  # old-style adapted

    @property
    def state(self) -> dict[str, Any]:
        return dict(self.core.snapshot().values)

    @property
    def status(self) -> str:
        record = self.store.sessions.get(self.id)
        return record.status if record else "new"

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.core.mode = mode
        self.store.sessions.update(self.id, mode=mode)

    def tasks(self) -> list[dict[str, Any]]:
        """The session's task list (todo_write, task_create/task_update), from checkpointed state."""
        return [dict(t) for t in self.core.snapshot().values.get("tasks") or []]

    # -- the end ----------------------------------------------------------------------------
    def close(self, *, keep_background: bool = False) -> None:
        """Stop background shell tasks (unless kept) and MCP servers, and close the database."""
        if self.core.hooks_engine is not None:  # hooks (issue 32): SessionEnd
            from cairn.graph.session.hooks_run import session_end

            session_end(self.core)
        self.core.close_tools(keep_background=keep_background)
        self.store.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


__all__ = ["MODES", "RunResult", "Session", "SessionError"]
