"""What a session's collaborators share: its identity, store, workspace, tools and limits, and
the resources built on first use (model, rules, sandbox, context budget, tool profile).

``SessionCore`` holds state and no conversation logic: the collaborators (``Runner``,
``Approvals``, ``Waiting``, ``Rewinds``, ``SubagentManager``) and the run, rewind, compaction and
sub-agent helpers all take it; ``Session`` is the facade over them.  ``cairn.graph.session.builder``
makes it.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from cairn.checkpoints import Store
from cairn.graph.core.context import EventCallback
from cairn.graph.session.extensions import Extensions
from cairn.graph.session.runlock import RunLock
from cairn.tools import ToolRegistry, Workspace
from cairn.tools.services import ToolServices

#: LangGraph's step limit per run; the session's own ``max_steps`` is what stops a run.
RECURSION_LIMIT = 10_000


@dataclass(eq=False)
class SessionCore:
    id: str
    workspace: Workspace
    store: Store
    #: The compiled LangGraph graph, checkpointing into ``store``.
    graph: Any
    services: ToolServices
    registry: ToolRegistry
    run_lock: RunLock
    extensions: Extensions
    mode: str
    max_steps: int
    #: Token budget (input + output over the session's life); ``None``: unbounded.
    max_tokens: int | None
    #: An identical call repeated this many times pauses the run (status "loop").
    repeat_limit: int
    #: Tools passed as Python objects: always bound, never deferred (``cairn.graph.core.tool_selection``).
    pinned_tools: frozenset[str]
    #: Tools given by the caller (custom, MCP); sub-agents get them too.
    extra_tools: list[Any]
    #: The ``model`` option as given: a spec string, a model object, or None (the default).
    model_option: Any = None
    #: Rules given by the caller, added to the settings' (``cairn.graph.core.rule_setup.session_rules``).
    extra_rules: Any = None
    #: The ``context_window`` option; None: resolved from the model on first use.
    window_option: int | None = None
    #: Takes the rewind snapshots (None when snapshots are off).
    snapshotter: Any = None
    #: Set by ``stop()``; cleared when the run it was asked during ends.
    cancel_event: threading.Event = field(default_factory=threading.Event)
    #: The current run's event callback (sub-agents forward their events to it).
    event_sink: EventCallback | None = None
    #: Models with tools bound, reused by every run of the session (``AgentContext.bound_model``).
    bound_models: dict[Any, Any] = field(default_factory=dict)
    #: Log files of the background tasks kept running by ``close_tools(keep_background=True)``.
    kept_logs: list[str] = field(default_factory=list)
    #: The ``cairn.graph.session.subagent.SubagentManager`` (set by the builder).
    subagents: Any = None
    #: The session's settings (``cairn.graph.core.settings``): loaded once, the options on top.
    settings: Any = None
    #: Prices, the per-run money budget and the [budget] table (``cairn.graph.core.cost``).
    pricing: Any = None
    max_cost: float | None = None
    budget_config: Any = None
    #: OpenTelemetry (``cairn.graph.core.telemetry``); None when off (nothing of it imported).
    telemetry: Any = None
    #: The hook engine (``cairn.graph.core.hooks``; None: no hook configured), what sub-agents
    #: are given to run the same hooks, and whether SessionStart fired in this process.
    hooks_engine: Any = None
    hooks_args: dict[str, Any] = field(default_factory=dict)
    hooks_started: bool = False
    #: Where the session runs ("interactive", "headless", "python") and the terminal notifier
    #: the CLI attaches (``cairn.graph.core.hooks.notify``); notifications follow them.
    surface: str = "python"
    notifier: Any = None
    _tool_profile: str | None = None
    _model: Any = None
    _rules: Any = None
    _sandbox: Any = None
    _budget: Any = None

    # -- the checkpointed state ----------------------------------------------------------
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.id}, "recursion_limit": RECURSION_LIMIT}

    def snapshot(self) -> Any:
        return self.graph.get_state(self.config())

    # -- resources built on first use -----------------------------------------------------
    @property
    def model_spec(self) -> str | None:
        """The model as configured: a spec string (``gpt-4o``, ``script:FILE``) or None."""
        spec = self.model_option
        return spec if spec is None or isinstance(spec, str) else None

    @property
    def model(self) -> Any:
        if self._model is None:
            from cairn.graph.models import create_model

            spec = self.model_option
            self._model = spec if spec is not None and not isinstance(spec, str) else create_model(spec)
        return self._model

    @property
    def rules(self) -> Any:
        self.load_extension_tools()
        if self._rules is None:
            from cairn.graph.core.compaction.spill import spill_rules
            from cairn.graph.core.rule_setup import session_rules

            rules = session_rules(self.settings.rules(), self.extra_rules, self.registry)
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
            self.services.network_hosts = self._sandbox.settings.network_hosts  # the egress proxy's
            warn_once(self._sandbox)
        return self._sandbox

    @functools.cached_property
    def spill_dir(self) -> Any:
        """Where tool outputs too big for the prompt are stored whole (resolved once: the rules
        and the context budget both ask)."""
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
                window=resolve_window(model, self.window_option),
                **tuning,
                spill_dir=self.spill_dir,
                model_name=model_identity(model)[0],
                schema_chars=len(json.dumps(self.registry.schemas(), default=str)),
            )
        return self._budget

    @property
    def context_window(self) -> int:
        """The context window in use (tokens)."""
        return self.budget.window

    @property
    def tool_profile(self) -> str:
        """ "lean" (six core tools, short schemas, compact prompt) or "full" (cairn.graph.core.profiles).
        ``auto`` with no window given is decided here, on first use, by the resolved window."""
        if self._tool_profile is None:
            from cairn.graph.core.profiles import choose_profile

            self._tool_profile = choose_profile(None, None, self.context_window)
        return self._tool_profile

    # -- extensions -------------------------------------------------------------------------
    def load_extension_tools(self) -> None:
        """Register the tools of MCP servers that came up (waits for those still starting)."""
        if self.extensions.register_tools(self.registry):
            self._rules = None  # their risk levels and read-only flags join the rules

    def approve_project_mcp(self) -> None:
        """Approve this workspace's project MCP servers (remembered for this exact config) and start them."""
        self.extensions.approve_project()
        self.load_extension_tools()

    def url_guard(self, url: str, addresses: list[str] | None = None) -> str | None:
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

    # -- what the tools started -----------------------------------------------------------
    def background_tasks(self) -> list[dict[str, Any]]:
        """Background shell tasks this session started (``bash`` with run_in_background)."""
        if "shell" not in self.services.__dict__:
            return []
        return [t.to_dict() for t in self.services.shell.tasks()]

    def kept_background_tasks(self) -> list[dict[str, Any]]:
        """Background tasks kept running by earlier sessions of this workspace (with their logs)."""
        from cairn.graph.session import kept_tasks

        return [t for t in kept_tasks.listed(str(self.workspace.root)) if t.get("session_id") != self.id]

    def close_tools(self, *, keep_background: bool = False) -> None:
        """Stop what this session's tools started (shell tasks, MCP servers), leaving the database open.

        Kept background tasks write on into log files under the state directory; the next
        session of this workspace lists them (``kept_background_tasks``).
        """
        self.extensions.close()
        self.services.close_stat_cache()
        if "shell" not in self.services.__dict__:
            return
        from cairn.graph.session import kept_tasks

        log_dir = str(kept_tasks.tasks_dir() / self.id[:12]) if keep_background else None
        kept = self.services.shell.close(keep_running=keep_background, log_dir=log_dir)
        if kept:
            kept_tasks.record(str(self.workspace.root), self.id, kept)
            self.kept_logs = [log for _, log in kept]

    def sandbox_report(self, *, backend: str = "all", timeout: float = 300.0) -> dict[str, Any]:
        """What the shell sandbox enforces on this machine, measured: ``cairn sandbox check
        --json`` (see :mod:`cairn.graph.apps.cli.commands.sandbox_probes`), run in a process of its own because the
        probes set ``HOME`` to a temporary directory while they run."""
        import subprocess
        import sys

        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "cairn.graph.apps.cli",
                "sandbox",
                "check",
                "--json",
                "--backend",
                backend,
            ],
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


def model_label(model: Any) -> str:
    """What the session index records as the model: a spec string, else ""."""
    if model is None or isinstance(model, str):
        return model or ""
    return ""
