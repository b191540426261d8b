"""What the run and sub-agent helpers need of a Session, as a protocol.

``runs`` and ``subagent`` are called by ``Session`` with itself; typing them against this
protocol keeps them from importing the module that imports them.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol

from cairn.checkpoints import Store
from cairn.tools import ToolRegistry, Workspace
from cairn.tools.services import ToolServices


class SessionHost(Protocol):
    id: str
    store: Store
    workspace: Workspace
    registry: ToolRegistry
    mode: str
    max_steps: int
    max_tokens: int | None
    repeat_limit: int
    tool_profile: str
    cancel_event: threading.Event
    pinned_tools: frozenset[str]
    extensions: Any
    event_sink: Any
    #: The session's ``cairn.graph.core.settings.Settings`` (sub-agents inherit them).
    settings: Any
    #: Models with tools bound, kept across runs (``AgentContext.bound_model``).
    bound_models: dict[Any, Any]
    _graph: Any
    _services: ToolServices

    @property
    def model(self) -> Any: ...

    @property
    def snapshotter(self) -> Any: ...

    @property
    def rules(self) -> Any: ...

    @property
    def sandbox(self) -> Any: ...

    @property
    def budget(self) -> Any: ...

    def _config(self) -> dict[str, Any]: ...

    def _snapshot(self) -> Any: ...
