"""Making a Session's parts: the options in one place, the shared core, then the collaborators.

A new Session option is one field of ``SessionOptions`` (with its docstring) and, where it is
used, one line in ``build_core`` or ``build_parts``: ``Session(...)`` and ``Session.resume(...)``
take every field as a keyword argument.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cairn.checkpoints import Store, open_store
from cairn.graph.session.approvals import Approvals
from cairn.graph.session.core import SessionCore, model_label
from cairn.graph.session.extensions import Extensions
from cairn.graph.session.rewind_control import Rewinds
from cairn.graph.session.runlock import RunLock
from cairn.graph.session.runner import Runner
from cairn.graph.session.waiting import Waiting
from cairn.tools import ToolRegistry, ToolServices, Workspace, create_default_tools

MODES = ("default", "accept-edits", "plan", "bypass")


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """Everything ``Session(workspace, **options)`` accepts besides the workspace."""

    #: A spec string (``gpt-4o``, ``script:FILE``), a LangChain chat model, or None (the default).
    model: Any = None
    #: Where sessions are stored: a SQLite path or a ``postgresql://`` URL; None: the default.
    db: str | None = None
    #: One of ``MODES``.
    mode: str = "default"
    #: Extra ``policy.Rules`` (or rule strings) on top of the settings' rules.
    rules: Any = None
    #: Custom tools (Python objects): always bound, given to sub-agents too.
    tools: Iterable[Any] | None = None
    max_steps: int = 100
    #: Token budget (input + output over the session's life); None: unbounded.
    max_tokens: int | None = None
    #: An identical call repeated this many times pauses the run (status "loop").
    repeat_limit: int = 3
    #: "full", "lean" or "auto" (``cairn.graph.core.profiles``); None: the settings', else auto.
    tool_profile: str | None = None
    #: The model's context window in tokens, when the endpoint does not report it.
    context_window: int | None = None
    #: Reopen (or create under) this id; None: a new id.
    session_id: str | None = None
    #: Take rewind snapshots around calls that may change files (never in plan mode).
    snapshots: bool = True
    snapshot_max_file_bytes: int | None = None
    #: MCP servers given in code (``cairn.tools.mcp_servers``).
    mcp_servers: dict[str, Any] | None = None
    #: Extra MCP config files (``.mcp.json`` format).
    mcp_config: Iterable[str | os.PathLike[str]] = ()
    #: Start the project's MCP servers without asking (``--trust-project-mcp``).
    trust_project_mcp: bool = False
    #: Defer tools beyond this many (``cairn.graph.core.tool_selection``); None: the settings'.
    defer_threshold: int | None = None
    #: Settings to use instead of loading them (``cairn.graph.core.settings``; sub-agents get
    #: their parent's); the options above and ``overrides`` go on top.
    settings: Any = None
    #: ``{"table": {"key": value}}`` on top of the settings (the CLI's flags).
    overrides: Mapping[str, Mapping[str, Any]] | None = None
    #: Python hooks ``{event: [callable, ...]}`` besides the settings' (``cairn.graph.core.hooks``).
    hooks: dict[str, Any] | None = None
    #: Run the project's hooks without asking (``--trust-project-hooks``), sandboxed.
    trust_project_hooks: bool = False
    #: Prices per model (``cairn.graph.core.cost``) on top of the table and ``[pricing]``.
    pricing: Any = None
    #: US dollars a run may spend (else ``[budget] max_cost_per_run``); then it pauses ("budget").
    max_cost: float | None = None
    #: An open store to use instead of opening ``db`` (``Session.resume``, sub-agents).
    _store: Store | None = None
    #: Built-in tools left out (sub-agents have no agent tools).
    _exclude_tools: tuple[str, ...] = ()
    #: Start MCP servers (sub-agents share none of their parent's).
    _extensions: bool = True


@dataclass
class SessionParts:
    """The collaborators a ``Session`` owns, wired to one ``SessionCore``."""

    core: SessionCore
    runs: Runner
    approvals: Approvals
    waiting: Waiting
    rewinds: Rewinds


def build_parts(session_class: type, workspace: str | Any, options: SessionOptions) -> SessionParts:
    """The core and its collaborators; ``session_class`` is what sub-agents are opened as."""
    from cairn.graph.session.subagent import SubagentManager

    core = build_core(workspace, options)
    core.subagents = SubagentManager(core, session_class)
    core.services.subagents = core.subagents
    rewinds = Rewinds(core)
    runs = Runner(core, rewinds, default_sink=lambda: session_class.default_event_sink)
    approvals = Approvals(core, runs)
    return SessionParts(core, runs, approvals, Waiting(core, approvals, runs), rewinds)


def build_core(workspace: str | Any, options: SessionOptions) -> SessionCore:
    """Open the store, make the tools, start the MCP servers, index the session."""
    if options.mode not in MODES:
        raise ValueError(f"unknown mode {options.mode!r}; choose one of {', '.join(MODES)}")
    ws = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    if not ws.root.is_dir():
        raise ValueError(f"workspace {str(ws.root)!r} is not a directory")
    settings = _settings(ws, options)
    store = options._store or open_store(options.db)
    from cairn.graph.session.tool_profile import session_tool_profile

    # The tool profile when it can be chosen now, without the network (see ``SessionCore.tool_profile``).
    tool_profile = session_tool_profile(settings.tools.profile, context_window=settings.context.window)
    core: SessionCore | None = None
    services = _services(ws, settings, lambda: core.model if core is not None else None)
    builtins = create_default_tools(workspace=ws, services=services)
    registry = ToolRegistry(t for t in builtins if t.name not in options._exclude_tools)
    services.registry = registry
    pinned = frozenset(registry.register(tool).name for tool in options.tools or ())
    from cairn.graph.core.sandbox_setup import clear_placeholder_leftovers

    clear_placeholder_leftovers(ws.root)  # a killed run's, before .mcp.json is read
    # MCP servers start now, in the background; their tools join the registry before the first run.
    extensions = Extensions(
        ws,
        mcp_servers=options.mcp_servers,
        mcp_config=options.mcp_config,
        trust_project_mcp=options.trust_project_mcp,
        settings=settings,
        enabled=options._extensions,
    )
    from cairn.graph.build import build_graph

    graph = build_graph(store.saver)
    session_id = _indexed(store, ws, options)
    core = SessionCore(
        id=session_id,
        workspace=ws,
        store=store,
        graph=graph,
        services=services,
        registry=registry,
        run_lock=RunLock(store, session_id),
        extensions=extensions,
        mode=options.mode,
        max_steps=options.max_steps,
        max_tokens=options.max_tokens,
        repeat_limit=max(1, options.repeat_limit),
        pinned_tools=pinned,
        extra_tools=list(options.tools or ()),
        model_option=options.model,
        extra_rules=options.rules,
        window_option=settings.context.window,
        settings=settings,
        _tool_profile=tool_profile,
    )
    services.url_guard = core.url_guard
    _money_and_telemetry(core, options)
    _hooks(core, options)
    core.snapshotter = _snapshotter(core, options)
    reads = services.reads
    reads.seed(store.file_reads.load(session_id))
    reads.on_record = lambda record: store.file_reads.save(session_id, record)
    return core


def _settings(ws: Workspace, options: SessionOptions) -> Any:
    """Loaded once (or given); the keyword options are overrides (``cairn.graph.core.settings``)."""
    from cairn.graph.core.settings import load_settings

    given = {
        "tools": {"profile": options.tool_profile, "defer_threshold": options.defer_threshold},
        "context": {"window": options.context_window},
        "storage": {"snapshot_max_file_bytes": options.snapshot_max_file_bytes},
    }
    return (options.settings or load_settings(ws)).with_overrides(options.overrides or {}, given)


def _services(ws: Workspace, settings: Any, model: Any) -> ToolServices:
    """The tools' shared services; ``model()`` gives the session's model to the page summarizer."""
    from cairn.graph.session.web import make_page_summarizer

    return ToolServices(
        ws,
        secret_env_patterns=settings.shell.secret_env,
        shell_env=settings.shell.env,
        search_config=settings.web.search,
        summarize=make_page_summarizer(model, settings.model.summary_model, settings.model.base_url),
    )


def _money_and_telemetry(core: SessionCore, options: SessionOptions) -> None:
    """Prices ([pricing], ``pricing=``), the per-run money budget (``max_cost=``, else [budget]
    max_cost_per_run) and OpenTelemetry (off unless configured): issue 34."""
    from cairn.graph.core.cost.config import session_cost_setup
    from cairn.graph.core.telemetry import for_workspace

    core.pricing, core.max_cost, core.budget_config = session_cost_setup(
        core.workspace.root, options.pricing, options.max_cost
    )
    core.telemetry = for_workspace(core.workspace.root)


def _hooks(core: SessionCore, options: SessionOptions) -> None:
    """Settings [[hooks.EVENT]] and ``hooks=`` (issue 32); no engine when there are none."""
    from cairn.graph.session.hooks_run import build_engine

    core.hooks_engine = build_engine(core, options.hooks, trust_project_hooks=options.trust_project_hooks)
    core.hooks_args = {"hooks": options.hooks, "trust_project_hooks": options.trust_project_hooks}


def _indexed(store: Store, ws: Workspace, options: SessionOptions) -> str:
    """The session's id, with its index row created when it is new."""
    session_id = options.session_id or uuid.uuid4().hex
    if options.session_id is None or store.sessions.get(session_id) is None:
        store.sessions.create(
            session_id, workspace=str(ws.root), mode=options.mode, model=model_label(options.model)
        )
    return session_id


def _snapshotter(core: SessionCore, options: SessionOptions) -> Any:
    storage = core.settings.storage
    if not options.snapshots or options.mode == "plan" or not storage.snapshots:
        return None
    from cairn.checkpoints.snapshotter import Snapshotter

    return Snapshotter(
        core.store.snapshots, core.id, core.workspace.root, max_bytes=storage.snapshot_max_file_bytes
    )
