"""The Session API: how scripts, notebooks, the CLI and tests drive cairn.

    from cairn import Session
    s = Session("path/to/repo", model="script:demo.json")
    r = s.send("fix the failing test")
    if r.status == "awaiting_approval":
        r = s.approve()          # or s.reject(call_id, "use pathlib"), s.edit(...), s.decide({...})

Every call is synchronous and safe inside a running event loop (a Jupyter
cell): the graph runs on the calling thread with sync I/O and never touches
asyncio.  ``asend``/``acontinue`` run the same work in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from langchain_core.messages import BaseMessage, HumanMessage

from cairn.checkpoints import Store, open_store
from cairn.graph.core.events import EventCallback, event_callback
from cairn.graph.core.settings import Settings, load_settings
from cairn.graph.core.state import FRESH_RUN, GATED_STATUSES, ToolCallInfo, calls, unfinished_steps
from cairn.graph.session.decision_methods import DecisionsMixin
from cairn.graph.session.errors import SessionError
from cairn.graph.session.extensions import Extensions, ExtensionsMixin
from cairn.graph.session.result import RunResult
from cairn.graph.session.rewind_methods import RewindMixin
from cairn.graph.session.waiting import WaitingMixin
from cairn.tools import ToolRegistry, ToolServices, Workspace, create_default_tools

MODES = ("default", "accept-edits", "plan", "bypass")
RECURSION_LIMIT = 10_000
#: Unfinished steps a new message may simply follow (see ``send``).
SUPERSEDABLE_STEPS = frozenset({"reasoning", "__start__"})
#: A run that ends while background sub-agents work waits and reports at most this many times.
MAX_REPORT_ROUNDS = 50


class Session(DecisionsMixin, RewindMixin, WaitingMixin, ExtensionsMixin):
    """One agent conversation in one workspace, persisted under ``session.id``."""

    #: Where ``stream=True`` without ``on_event`` sends events. ``None``: the caller shows them.
    #: Inside a Jupyter kernel the notebook package sets it to stream into the cell
    #: (``cairn.graph.apps.notebook.connect``, called by ``from cairn import Session``).
    default_event_sink: ClassVar[Callable[[], EventCallback | None] | None] = None

    def __init__(
        self,
        workspace: str | Any = ".",
        *,
        model: Any = None,
        db: str | None = None,
        mode: str = "default",
        rules: Any = None,
        tools: Iterable[Any] | None = None,
        max_steps: int = 100,
        max_tokens: int | None = None,
        repeat_limit: int = 3,
        tool_profile: str | None = None,
        context_window: int | None = None,
        session_id: str | None = None,
        snapshots: bool = True,
        snapshot_max_file_bytes: int | None = None,
        mcp_servers: dict[str, Any] | None = None,
        mcp_config: Iterable[str | os.PathLike[str]] = (),
        trust_project_mcp: bool = False,
        defer_threshold: int | None = None,
        settings: Settings | None = None,
        overrides: Mapping[str, Mapping[str, Any]] | None = None,
        hooks: dict[str, Any] | None = None,
        trust_project_hooks: bool = False,
        pricing: Any = None,
        max_cost: float | None = None,
        _store: Store | None = None,
        _exclude_tools: tuple[str, ...] = (),
        _extensions: bool = True,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.workspace = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
        if not self.workspace.root.is_dir():
            raise ValueError(f"workspace {str(self.workspace.root)!r} is not a directory")
        # Settings: loaded once (or given); the keyword arguments are overrides (graph/core/settings.py).
        given = {"tools": {"profile": tool_profile, "defer_threshold": defer_threshold}}
        given["context"] = {"window": context_window}
        given["storage"] = {"snapshot_max_file_bytes": snapshot_max_file_bytes}
        self.settings = (settings or load_settings(self.workspace)).with_overrides(overrides or {}, given)
        self.store = _store or open_store(db)
        self.mode = mode
        self.max_steps = max_steps
        #: Token budget (input + output over the session's life); ``None``: unbounded.
        self.max_tokens = max_tokens
        # issue 34 hook-in: prices ([pricing], ``pricing=``) and the per-run money budget
        # (``max_cost=``, else [budget] max_cost_per_run); see cairn.graph.core.cost.
        from cairn.graph.core.cost.config import session_cost_setup

        self.pricing, self.max_cost, self.budget_config = session_cost_setup(
            self.workspace.root, pricing, max_cost
        )
        from cairn.graph.core.telemetry import for_workspace

        #: OpenTelemetry (``cairn.graph.core.telemetry``); None when off (nothing of it imported).
        self.telemetry = for_workspace(self.workspace.root)
        #: An identical call repeated this many times pauses the run (status "loop").
        self.repeat_limit = max(1, repeat_limit)
        # The tool profile: chosen now when it can be without the network (see ``tool_profile``).
        from cairn.graph.session.tool_profile import session_tool_profile

        known_window = self.settings.context.window
        self._tool_profile = session_tool_profile(self.settings.tools.profile, context_window=known_window)
        self._model_spec = model
        self._model: Any = None
        self._extra_rules = rules
        self._staged: dict[str, dict[str, Any]] = {}
        self.cancel_event = threading.Event()
        self._run_depth = 0  # nested runs (a decision applied while waiting): the flag clears at 0
        #: The current run's event callback (sub-agents forward their events to it).
        self.event_sink: EventCallback | None = None
        from cairn.graph.session.web import make_page_summarizer

        self._services = ToolServices(
            self.workspace,
            secret_env_patterns=self.settings.shell.secret_env,
            shell_env=self.settings.shell.env,
            search_config=self.settings.web.search,
            summarize=make_page_summarizer(
                lambda: self.model, self.settings.model.summary_model, self.settings.model.base_url
            ),
        )
        #: Log files of the background tasks kept running by ``close(keep_background=True)``.
        self.kept_logs: list[str] = []
        builtins = create_default_tools(workspace=self.workspace, services=self._services)
        self.registry = ToolRegistry(t for t in builtins if t.name not in _exclude_tools)
        self._services.registry = self.registry
        pinned = [self.registry.register(tool).name for tool in tools or ()]
        #: Tools passed as Python objects: always bound, never deferred (``cairn.graph.core.tool_selection``).
        self.pinned_tools = frozenset(pinned)
        from cairn.graph.core.sandbox_setup import clear_placeholder_leftovers

        clear_placeholder_leftovers(self.workspace.root)  # a killed run's, before .mcp.json is read
        # MCP servers start now, in the background; their tools join the registry before the first run.
        self.extensions = Extensions(
            self.workspace,
            mcp_servers=mcp_servers,
            mcp_config=mcp_config,
            trust_project_mcp=trust_project_mcp,
            settings=self.settings,
            enabled=_extensions,
        )
        #: Tools given by the caller (custom, MCP); sub-agents get them too.
        self.extra_tools = list(tools or ())
        self._rules: Any = None
        self._sandbox: Any = None
        self._context_window = self.settings.context.window
        self._budget: Any = None
        #: Models with tools bound, reused by every run of the session (``AgentContext.bound_model``).
        self.bound_models: dict[Any, Any] = {}
        from cairn.graph.build import build_graph

        self._graph = build_graph(self.store.saver)
        self.id = session_id or uuid.uuid4().hex
        if session_id is None or self.store.sessions.get(self.id) is None:
            self.store.sessions.create(
                self.id, workspace=str(self.workspace.root), mode=mode, model=_model_label(model)
            )
        self._services.url_guard = self._url_guard
        # -- hooks (issue 32): settings [[hooks.EVENT]] + Session(hooks=...); None when there are none
        from cairn.graph.session.hooks_run import build_engine

        self.hooks_engine = build_engine(self, hooks, trust_project_hooks=trust_project_hooks)
        #: What sub-agents are given, so they run the same hooks (``cairn.graph.session.child``).
        self.hooks_args = {"hooks": hooks, "trust_project_hooks": trust_project_hooks}
        self._hooks_started = False
        #: Where the session runs ("interactive", "headless", "python") and the terminal notifier
        #: the CLI attaches (``cairn.graph.core.hooks.notify``); notifications follow them.
        self.surface = "python"
        self.notifier: Any = None
        from cairn.graph.session.runlock import RunLock

        self._run_lock = RunLock(self.store, self.id)
        from cairn.graph.session.subagent import SubagentManager

        self.subagents = SubagentManager(self)
        self._services.subagents = self.subagents
        self.recovered: list[Any] = []
        self._snapshotter: Any = None
        if snapshots and mode != "plan" and self.settings.storage.snapshots:
            from cairn.checkpoints.snapshotter import Snapshotter

            self._snapshotter = Snapshotter(
                self.store.snapshots,
                self.id,
                self.workspace.root,
                max_bytes=self.settings.storage.snapshot_max_file_bytes,
            )
        reads = self._services.reads
        reads.seed(self.store.file_reads.load(self.id))
        reads.on_record = lambda record: self.store.file_reads.save(self.id, record)

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def resume(
        cls,
        session_id: str,
        *,
        db: str | None = None,
        model: Any = None,
        tools: Iterable[Any] | None = None,
        mode: str | None = None,
        max_steps: int = 100,
        context_window: int | None = None,
        **extensions: Any,
    ) -> Session:
        """Reopen a stored session (in this or a new process). Short id prefixes work.

        ``extensions``: ``mcp_servers``, ``mcp_config``, ``trust_project_mcp``, ``defer_threshold``,
        ``hooks``, ``trust_project_hooks``.
        """
        store = open_store(db)
        record = store.sessions.get(session_id)
        if record is None:
            matches = store.sessions.find(session_id)
            if len(matches) != 1:
                store.close()
                why = "no session" if not matches else f"{len(matches)} sessions"
                raise SessionError(f"{why} matching {session_id!r} in {store.location}")
            record = matches[0]
        session = cls(
            record.workspace,
            model=model if model is not None else (record.model or None),
            mode=mode or record.mode,
            tools=tools,
            max_steps=max_steps,
            context_window=context_window,
            session_id=record.session_id,
            _store=store,
            **extensions,
        )
        try:
            session.recovered = session.recover_rewinds()
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
        if not text.strip():
            self._forget_if_empty()
            raise ValueError("message is empty")
        if any(r.status == "started" for r in self.store.snapshots.rewinds(self.id)):
            self.recovered.extend(self.recover_rewinds())  # before the message joins the branch
        state = self._snapshot()
        gated = [c for c in calls(state.values.get("pending_tool_calls")) if c.status in GATED_STATUSES]
        # A run cut off before the model answered (model error, Ctrl-C) has nothing pending
        # but its model call, and one killed before its first step has only LangGraph's input
        # step (``__start__``) left: the new message goes after the one the model never saw.
        steps = unfinished_steps(state)
        if gated or (steps and not set(steps) <= SUPERSEDABLE_STEPS):
            raise SessionError(
                "the session is paused with unfinished tool calls "
                f"({', '.join(c.call_id for c in self.pending()) or ', '.join(steps)}); "
                "decide them (approve/reject/retry/cancel) or continue_() first"
            )
        try:
            self.model  # noqa: B018  (a model that cannot be built fails here, before the session is "running")
        except Exception:
            self._forget_if_empty()  # a failed start leaves no empty session behind
            raise
        if self.hooks_engine is not None:  # -- hooks (issue 32): SessionStart, UserPromptSubmit
            from cairn.graph.session.hooks_run import before_prompt

            text, blocked = before_prompt(self, text, on_event)
            if blocked is not None:
                self._forget_if_empty()
                return blocked
        from cairn.graph.session.runs import run_head

        self._ensure_indexed()
        # A prompt a kill left staged (see ``cairn.checkpoints.inbox``) was sent: this one follows it.
        parent = self._staged_prompt(state) or run_head(self, state)
        store = self.store

        def staged(head: str | None) -> list[tuple[str, tuple[Any, ...]]]:
            # One transaction: the message, its staging and "running" (the first-write window).
            return [
                store.inbox.stage_statement(self.id, head or ""),
                store.sessions.update_statement(self.id, title=_title(text), status="running"),
            ]

        try:
            head = store.transcript.append(self.id, parent, [HumanMessage(text)], also=staged)
        except Exception:
            self._forget_if_empty()
            raise
        return self._run({"head": head, **FRESH_RUN}, stream, on_event, wait=(wait, wait_timeout))

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
        state = self._snapshot()
        if state.interrupts:
            return self._answer_recorded(
                stream=stream, on_event=on_event, wait=wait, wait_timeout=wait_timeout
            )
        if unfinished_steps(state):
            return self._run(None, stream, on_event, wait=(wait, wait_timeout))
        staged = self._staged_prompt(state)
        if staged is not None:  # killed after storing the prompt, before any checkpoint held it
            return self._run({"head": staged, **FRESH_RUN}, stream, on_event, wait=(wait, wait_timeout))
        if state.values.get("paused"):
            return self._run(dict(FRESH_RUN), stream, on_event, wait=(wait, wait_timeout))
        if self.subagents.active() or self._awaiting_children():
            # Background sub-agents of a run a crash cut short: re-attach, wait, take their reports.
            return self._run(dict(FRESH_RUN), stream, on_event, wait=(wait, wait_timeout), wait_first=True)
        return self._status_now()

    async def asend(self, text: str, **kwargs: Any) -> RunResult:
        return await asyncio.to_thread(self.send, text, **kwargs)

    async def acontinue(self, **kwargs: Any) -> RunResult:
        return await asyncio.to_thread(self.continue_, **kwargs)

    def stop(self) -> None:
        """Ask the running call/stream to stop (what Ctrl-C does): tools stop, calls become interrupted.

        The stop holds until the current run ends, so one asked just before a run starts (Ctrl-C
        right after a send) stops that run; with no run going, it applies to the next one.
        """
        self.cancel_event.set()

    # -- inspection -------------------------------------------------------------------------
    def pending(self) -> list[ToolCallInfo]:
        """Calls waiting for a person (awaiting_approval or interrupted), sub-agents' included
        (ids ``<agent call>/<call>``, with ``agent_id`` and ``agent`` set)."""
        from cairn.graph.session.child_approvals import with_child_asks

        own = [
            c for c in calls(self._snapshot().values.get("pending_tool_calls")) if c.status in GATED_STATUSES
        ]
        # -- (R2, issue 28) calls a SIGKILL cut off show as interrupted at once, not after continue_()
        from cairn.graph.session.decisions import killed_in_flight

        own += killed_in_flight(self)
        return with_child_asks(self, own)

    def tool_calls(self) -> list[ToolCallInfo]:
        """Every call of the session with its lifecycle status, in the order the model made them."""
        from cairn.graph.core.calllog import session_tool_calls

        return session_tool_calls(self.store, self.id, self._snapshot().values)

    def history(self, *, sent: bool = False) -> list[BaseMessage]:
        """The whole transcript (compactions appear as ``compaction`` system messages), or with
        ``sent=True`` what the model is sent now: system prompt, first request, summary, recent
        turns, old outputs elided."""
        values = self._snapshot().values
        if not sent:
            return self.store.transcript.read(self.id, values.get("head"))
        from langchain_core.messages import SystemMessage

        from cairn.graph.core.compaction.prepare import prepare_prompt
        from cairn.graph.session.runs import make_context

        ctx = make_context(self, False, None)
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
        return run_manual_compaction(self, focus, event_callback(on_event))  # (events: old-style adapted)

    def checkpoints(self, limit: int = 50) -> list[dict[str, Any]]:
        """Earlier checkpoints (newest first): id, step, next nodes, message count."""
        out = []
        for snap in self._graph.get_state_history(self._config(), limit=limit):
            out.append(
                {
                    "checkpoint_id": snap.config["configurable"]["checkpoint_id"],
                    "step": snap.metadata.get("step") if snap.metadata else None,
                    "next": list(snap.next),
                    "messages": len(self.store.transcript.read(self.id, snap.values.get("head"))),
                    "created_at": snap.created_at,
                }
            )
        return out

    def fork(self, at: str | None = None, *, turn: int | None = None, model: Any = None) -> Session:
        """A new session from an earlier checkpoint (``at``: an id from ``checkpoints()``) or from
        just before your ``turn``-th message; this one is left untouched and nothing mutable is
        shared (its own store connection, transcript and state).  The workspace is not rewound
        (``rewind`` does that).  Issue 34 hook-in: cairn.graph.session.fork."""
        import copy

        from cairn.graph.session.fork import fork_into, fork_point

        snap = fork_point(self, at, turn)
        shared = self.store if self.store.location == ":memory:" else None  # one in-memory database
        forked = type(self)(
            self.workspace.root,
            model=model if model is not None else self._model_spec,
            db=None if shared is not None else self.store.location,
            mode=self.mode,
            rules=self._extra_rules,
            tools=self.extra_tools,
            max_steps=self.max_steps,
            max_tokens=self.max_tokens,
            pricing=copy.deepcopy(self.pricing),
            max_cost=self.max_cost,
            _store=shared,
        )
        try:
            fork_into(self, forked, snap)
            if snap is not None:  # the index says where the copy stands, and whose fork it is
                record = self.store.sessions.get(self.id)
                title = f"fork of {record.title}" if record is not None and record.title else None
                forked.store.sessions.update(forked.id, status=forked._status_now().status, title=title)
        except Exception:
            forked.close()
            raise
        return forked

    def export(self, format: str = "md") -> str:
        """The session as a shareable transcript: ``md``, ``json`` or self-contained ``html``,
        secrets the environment filter knows redacted (issue 34 hook-in: cairn.graph.core.export)."""
        from cairn.graph.core.export import export_session

        return export_session(self.store, self.id, format, pricing=self.pricing)

    @property
    def state(self) -> dict[str, Any]:
        return dict(self._snapshot().values)

    @property
    def status(self) -> str:
        record = self.store.sessions.get(self.id)
        return record.status if record else "new"

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.mode = mode
        self.store.sessions.update(self.id, mode=mode)

    def tasks(self) -> list[dict[str, Any]]:
        """The session's task list (todo_write, task_create/task_update), from checkpointed state."""
        return [dict(t) for t in self._snapshot().values.get("tasks") or []]

    def background_tasks(self) -> list[dict[str, Any]]:
        """Background shell tasks this session started (``bash`` with run_in_background)."""
        if "shell" not in self._services.__dict__:
            return []
        return [t.to_dict() for t in self._services.shell.tasks()]

    def close(self, *, keep_background: bool = False) -> None:
        """Stop background shell tasks (unless kept) and MCP servers, and close the database."""
        if self.hooks_engine is not None:  # -- hooks (issue 32)
            from cairn.graph.session.hooks_run import session_end

            session_end(self)
        self.close_tools(keep_background=keep_background)
        self.store.close()

    def close_tools(self, *, keep_background: bool = False) -> None:
        """Stop what this session's tools started (shell tasks, MCP servers), leaving the database open.

        Kept background tasks write on into log files under the state directory; the next
        session of this workspace lists them (``kept_background_tasks``).
        """
        self.extensions.close()
        self._services.close_stat_cache()
        if "shell" not in self._services.__dict__:
            return
        from cairn.graph.session import kept_tasks

        log_dir = str(kept_tasks.tasks_dir() / self.id[:12]) if keep_background else None
        kept = self._services.shell.close(keep_running=keep_background, log_dir=log_dir)
        if kept:
            kept_tasks.record(str(self.workspace.root), self.id, kept)
            self.kept_logs = [log for _, log in kept]

    def kept_background_tasks(self) -> list[dict[str, Any]]:
        """Background tasks kept running by earlier sessions of this workspace (with their logs)."""
        from cairn.graph.session import kept_tasks

        return [t for t in kept_tasks.listed(str(self.workspace.root)) if t.get("session_id") != self.id]

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------
    @property
    def snapshotter(self) -> Any:
        """Takes the rewind snapshots (None when snapshots are off)."""
        return self._snapshotter

    @property
    def model_spec(self) -> str | None:
        """The model as configured: a spec string (``gpt-4o``, ``script:FILE``) or None."""
        spec = self._model_spec
        return spec if spec is None or isinstance(spec, str) else None

    @property
    def model(self) -> Any:
        if self._model is None:
            from cairn.graph.models import create_model

            spec = self._model_spec
            self._model = spec if spec is not None and not isinstance(spec, str) else create_model(spec)
        return self._model

    @property
    def rules(self) -> Any:
        self._load_extension_tools()
        if self._rules is None:
            from cairn.graph.core.compaction.spill import spill_rules
            from cairn.graph.core.rule_setup import session_rules

            rules = session_rules(self.settings.rules(), self._extra_rules, self.registry)
            for rule in spill_rules(self.spill_dir):  # the model may read its stored big outputs
                rules = rules.with_allow(rule)
            self._rules = rules
        return self._rules

    @property
    def sandbox(self) -> Any:
        """The session's ``SandboxSetup``: settings, the backend detected, the state (on/off/unavailable)."""
        if self._sandbox is None:
            from cairn.graph.core.sandbox_setup import SandboxSetup, warn_once

            self._sandbox = SandboxSetup.detect(self.workspace.root, self.settings.sandbox.as_policy())
            self._services.network_hosts = self._sandbox.settings.network_hosts  # the egress proxy's
            warn_once(self._sandbox)
        return self._sandbox

    def sandbox_report(self, *, backend: str = "all", timeout: float = 300.0) -> dict[str, Any]:
        """What the shell sandbox enforces on this machine, measured: ``cairn sandbox check
        --json`` (see :mod:`cairn.graph.apps.cli.commands.sandbox_probes`), run in a process of its own because the
        probes set ``HOME`` to a temporary directory while they run."""
        import json
        import subprocess
        import sys

        done = subprocess.run(
            [sys.executable, "-m", "cairn.graph.apps.cli", "sandbox", "check", "--json", "--backend", backend],
            cwd=self.workspace.root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        try:
            return json.loads(done.stdout)
        except ValueError:
            raise RuntimeError(
                f"cairn sandbox check failed (exit {done.returncode}): {done.stderr.strip()}"
            ) from None

    @property
    def spill_dir(self) -> Any:
        """Where tool outputs too big for the prompt are stored whole."""
        from cairn.graph.core.compaction.spill import spill_dir

        return spill_dir(self.store.location, self.id)

    @property
    def budget(self) -> Any:
        """The context budget (window, thresholds); the window is resolved on first use."""
        if self._budget is None:
            from cairn.graph.core.compaction.budget import ContextBudget
            from cairn.graph.core.compaction.windows import model_identity, resolve_window

            model = self.model
            tuning = self.settings.context.model_dump(exclude={"window"}, exclude_none=True)
            self._budget = ContextBudget(
                window=resolve_window(model, self._context_window),
                **tuning,
                spill_dir=self.spill_dir,
                model_name=model_identity(model)[0],
                schema_chars=len(json.dumps(self.registry.schemas(), default=str)),
            )
        return self._budget

    @property
    def context_window(self) -> int:
        return self.budget.window

    @property
    def tool_profile(self) -> str:
        """ "lean" (six core tools, short schemas, compact prompt) or "full" (cairn.graph.core.profiles).
        ``auto`` with no window given is decided here, on first use, by the resolved window."""
        if self._tool_profile is None:
            from cairn.graph.core.profiles import choose_profile

            self._tool_profile = choose_profile(None, None, self.context_window)
        return self._tool_profile

    def _url_guard(self, url: str, addresses: list[str] | None = None) -> str | None:
        """The web tool asks this before the first request and every redirect hop, after the
        call was approved.  ``addresses`` are the host's addresses, resolved once by the tool,
        which connects only to them (DNS pinning); they are what the policy judges.

        A hop the policy would ask about stops the fetch (the model is told to fetch that URL
        itself, which goes through approval); the first URL was already approved as a call.
        """
        from cairn import policy

        resolver = (lambda _host: list(addresses)) if addresses is not None else None
        verdict = policy.check_url(url, rules=self.rules, resolver=resolver)
        decision = str(verdict.decision)
        if decision == "allow":
            return None
        return f"{decision}: {verdict.reason}"

    def _config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.id}, "recursion_limit": RECURSION_LIMIT}

    def _snapshot(self) -> Any:
        return self._graph.get_state(self._config())

    def _run(
        self,
        payload: Any,
        stream: bool,
        on_event: EventCallback | None,
        *,
        wait: tuple[bool, float | None] = (False, None),
        wait_first: bool = False,
    ) -> RunResult:
        sink = type(self).default_event_sink
        if stream and on_event is None and sink is not None:
            on_event = sink()
        on_event = event_callback(on_event)  # (events) an old ``(kind, payload)`` callback, adapted
        self._load_extension_tools()
        self._run_depth += 1
        try:
            return self._run_held(payload, stream, on_event, wait=wait, wait_first=wait_first)
        finally:
            self._run_depth -= 1
            if self._run_depth == 0:
                # A stop applies to the run it was asked during (or the one about to start):
                # cleared only once that run is over, never at its start (see ``stop``).
                self.cancel_event.clear()

    def _run_held(
        self,
        payload: Any,
        stream: bool,
        on_event: EventCallback | None,
        *,
        wait: tuple[bool, float | None],
        wait_first: bool,
    ) -> RunResult:
        from cairn.graph.session.runs import run_graph

        with self._run_lock.hold():
            from cairn.graph.session.rewind import recover

            self.recovered.extend(recover(self))
            self.event_sink = on_event
            self.subagents.reattach()
            if wait_first:
                self.subagents.wait(self.cancel_event)
                if self.subagents.asking():  # a background sub-agent needs a person first
                    return self._status_now()
            result = run_graph(self, payload, stream=stream, on_event=on_event)
            # Background sub-agents still at work: the turn ends when their reports are in.
            for _ in range(MAX_REPORT_ROUNDS):
                if result.status != "done" or not self._awaiting_children():
                    break
                self.subagents.wait(self.cancel_event)
                if self.cancel_event.is_set():
                    break
                if self.subagents.asking():  # the turn pauses: a background sub-agent needs a person
                    result = result.model_copy(
                        update={"status": "awaiting_approval", "pending": self.pending()}
                    )
                    self.store.sessions.update(self.id, status="awaiting_approval")
                    break
                result = run_graph(self, dict(FRESH_RUN), stream=stream, on_event=on_event)
            if self.hooks_engine is not None:  # -- hooks (issue 32): Stop may send the model back to work
                from cairn.graph.session.hooks_run import after_run

                rerun = lambda p: run_graph(self, p, stream=stream, on_event=on_event)  # noqa: E731
                result = after_run(self, result, rerun, on_event)
            if wait[0]:
                from cairn.graph.session.waiting import wait_for_decisions

                result = wait_for_decisions(self, result, timeout=wait[1], stream=stream, on_event=on_event)
            if self._run_depth == 1:  # -- hooks (issue 32): notify when it waits, failed or took long
                from cairn.graph.session.hooks_run import notify_after_run

                notify_after_run(self, result, on_event)
            return result

    def _staged_prompt(self, state: Any) -> str | None:
        """The head of a prompt stored but never taken by a run (a kill in the first-write
        window), or None.  A staging that a checkpoint already holds is cleared here."""
        staged = self.store.inbox.get(self.id)
        if staged is None:
            return None
        from cairn.graph.session.runs import run_head

        current = run_head(self, state)
        if current is not None:
            chain = self.store.transcript.tail(self.id, current, stop=lambda m: m.id == staged)
            if chain and chain[0].id == staged:
                self.store.inbox.clear(self.id, staged)
                return None
        return staged

    def _ensure_indexed(self) -> None:
        """The session's index row (a failed start may have removed it)."""
        self.store.sessions.create(
            self.id, workspace=str(self.workspace.root), mode=self.mode, model=_model_label(self._model_spec)
        )

    def _forget_if_empty(self) -> None:
        """Drop the index row of a session that never stored anything (a failed first start)."""
        record = self.store.sessions.get(self.id)
        if record is None or record.status != "new" or record.parent_id:
            return
        if (
            self._graph.checkpointer.get_tuple(self._config()) is None
            and self.store.inbox.get(self.id) is None
        ):
            self.store.sessions.delete(self.id)

    def _awaiting_children(self) -> bool:
        delivered = list(self._snapshot().values.get("delivered_agents") or [])
        return bool(self.subagents.running()) or self.subagents.undelivered(delivered)

    def _status_now(self) -> RunResult:
        """Where the session stands, without running anything.

        The index is corrected when it says otherwise: a run killed after its last checkpoint
        but before it recorded its status is still listed as ``running``.
        """
        from cairn.graph.session.runs import build_result

        result = build_result(self, None, None, since_head=None)
        if result.status != "error" and self.status not in (result.status, "new"):
            self.store.sessions.update(self.id, status=result.status)
        return result


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line[:80] + ("…" if len(line) > 80 else "")


def _model_label(model: Any) -> str:
    if model is None or isinstance(model, str):
        return model or ""
    return ""


__all__ = ["MODES", "RunResult", "Session", "SessionError"]
