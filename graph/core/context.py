"""Runtime services the nodes use: not checkpointed, rebuilt by every process.

Passed to the graph as LangGraph's runtime ``context`` on each invoke.  It holds
the model, the tool registry, the store, the configured rules and the callbacks
through which a surface (CLI, notebook) sees tokens and tool calls as they
happen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from cairn.checkpoints import Store
from cairn.graph.core.events import Event, EventCallback
from cairn.graph.core.profiles import in_profile, lean_schema
from cairn.tools import ToolRegistry, Workspace
from cairn.tools.base import plan_allows

__all__ = ["AgentContext", "EventCallback"]


@dataclass
class AgentContext:
    thread_id: str
    workspace: Workspace
    store: Store
    model: Any  # a LangChain BaseChatModel
    registry: ToolRegistry
    rules: Any  # policy.Rules from settings (+ custom tools' risk); session rules live in state
    mode: str = "default"
    max_steps: int = 100
    #: Token budget of the session (input + output, all runs); ``None``: unbounded.
    max_tokens: int | None = None
    stream: bool = False
    #: New-style (takes the event object); the Session adapts old ``(kind, payload)`` ones.
    on_event: EventCallback | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    system_prompt: Callable[[str], str] | None = None
    #: An identical call repeated this many times in a run pauses the run (``cairn.graph.core.loops``).
    repeat_limit: int = 3
    #: Workspace, date, instructions, memory: sent at the top of the first user message.
    session_context: str | None = None
    #: ``full`` or ``lean`` (``cairn.graph.core.profiles``).
    tool_profile: str = "full"
    #: The session's ``SandboxSetup`` (``cairn.graph.core.sandbox_setup``); ``None``: no sandbox.
    sandbox: Any = None
    #: Takes rewind snapshots around calls that may change files (``before``/``after(call_id)``).
    snapshots: Any = None
    #: Tools always bound (passed as Python objects); see ``cairn.graph.core.tool_selection``.
    pinned_tools: frozenset[str] = frozenset()
    defer_threshold: int = 15
    #: ``cairn.graph.core.compaction.budget.ContextBudget``: window, thresholds, where big outputs go.
    budget: Any = None
    #: ``cairn.graph.models.call_limits.CallLimits`` from the session's settings; ``None``: defaults.
    call_limits: Any = None
    #: -- hooks (issue 32): the session's ``cairn.graph.core.hooks.engine.HookEngine``; ``None``: no hooks.
    hooks: Any = None
    #: Bound models by (model, profile, tools); a Session passes one dict for all its runs.
    _bound: dict[Any, Any] = field(default_factory=dict)
    # -- issue 34 hook-in: money (cairn.graph.core.cost) and telemetry (cairn.graph.core.telemetry) --
    #: Dollars one run may spend (``cairn.graph.core.cost.spend``); ``None``: unbounded.
    max_cost: float | None = None
    #: ``cairn.graph.core.cost.Pricing`` of the session (None: the built-in table).
    pricing: Any = None
    #: The run's ``cairn.graph.core.telemetry`` recorder; ``None`` when telemetry is off.
    telemetry: Any = None

    def emit(self, event: Event) -> None:
        """Hand ``event`` (a class of ``cairn.graph.core.events``) to the surface, if one listens."""
        if self.on_event is None:
            return
        try:
            self.on_event(event)
        except Exception:  # a broken display never breaks the agent
            pass

    def active_registry(self, mode: str) -> ToolRegistry:
        """Tools offered to the model: the profile's, and in plan mode those plan mode offers."""
        registry = self.registry
        if self.tool_profile != "full":
            registry = registry.filtered([t.name for t in registry if in_profile(t, self.tool_profile)])
        if mode == "plan":
            # the policy's predicate too: a tool offered here is one plan mode can allow
            extra = set(getattr(self.rules, "read_only_tools", ()) or ())
            names = [t.name for t in registry if plan_allows(t) or t.name in extra]
            return registry.filtered(names)
        return registry

    def bound_model(self, mode: str, activated: Iterable[str] = ()) -> Any:
        """The model with the tools of this step bound (deferred ones only once activated)."""
        from cairn.graph.core.tool_selection import bound_tool_names

        names = bound_tool_names(self, mode, activated)
        tools = [tool for tool in map(self.registry.get, names) if tool is not None]
        # The session shares ``_bound`` across its runs: the key names everything the binding depends on.
        key = (id(self.model), self.tool_profile, tuple(map(id, tools)))
        if key not in self._bound:
            if self.tool_profile == "lean":
                schemas = [lean_schema(t.openai_schema(), t.lean_fields) for t in tools]
            else:
                schemas = [t.openai_schema() for t in tools]
            self._bound[key] = self.model.bind_tools(schemas) if schemas else self.model
        return self._bound[key]
