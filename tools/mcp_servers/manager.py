"""Starting, tracking and stopping a session's MCP servers (through langchain-mcp-adapters).

Each server gets one long-lived client session, opened by a task on the session's private loop
(``LoopThread``): ``MultiServerMCPClient.session(name)`` then ``load_mcp_tools(session)``.  All
servers start in parallel as soon as ``start`` is called; ``wait`` blocks until each is ready or
failed (bounded by its ``startup_timeout``).  A server that fails to start or dies later is
reported once (``on_notice``) and its tools answer with an error saying so; the session goes on.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from cairn.tools.mcp_servers.config import ServerSpec
from cairn.tools.mcp_servers.loop import LoopThread

__all__ = ["McpManager", "ServerState"]

Notice = Callable[[str], None]


@dataclass
class ServerState:
    spec: ServerSpec
    #: not started | awaiting approval | starting | running | failed | stopped
    status: str = "not started"
    error: str | None = None
    tools: list[Any] = field(default_factory=list)  # LangChain tools bound to the live session
    ready: threading.Event = field(default_factory=threading.Event)
    stop: asyncio.Event | None = None
    task: Any = None
    reported: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.spec.name,
            "transport": self.spec.transport,
            "source": self.spec.source,
            "project": self.spec.project,
            "status": self.status,
            "error": self.error,
            "tools": [t.name for t in self.tools],
        }


class McpManager:
    def __init__(self, specs: Iterable[ServerSpec], *, on_notice: Notice | None = None) -> None:
        self.servers: dict[str, ServerState] = {s.name: ServerState(s) for s in specs}
        self.on_notice = on_notice
        self._loop: LoopThread | None = None
        self._lock = threading.Lock()

    @property
    def loop(self) -> LoopThread:
        with self._lock:
            if self._loop is None:
                self._loop = LoopThread(name="cairn-mcp")
            return self._loop

    # -- lifecycle -----------------------------------------------------------------------
    def start(self, names: Iterable[str] | None = None) -> None:
        """Start the named servers (default: every one not started yet) in parallel; returns at once."""
        wanted = set(self.servers) if names is None else set(names)
        for state in self.servers.values():
            if state.spec.name in wanted and state.status in ("not started", "awaiting approval"):
                state.status = "starting"
                state.ready.clear()
                state.task = self.loop.submit(self._serve(state))

    def wait(self, names: Iterable[str] | None = None) -> None:
        """Block until the started servers are running or failed (each within its startup timeout)."""
        for state in self.servers.values():
            if names is not None and state.spec.name not in set(names):
                continue
            if state.status != "starting":
                continue
            if not state.ready.wait(state.spec.startup_timeout):
                state.status = "failed"
                state.error = f"did not start within {state.spec.startup_timeout:.0f} s"
                if state.task is not None:
                    state.task.cancel()
                self.report(state)

    async def _serve(self, state: ServerState) -> None:
        from langchain_mcp_adapters.client import MultiServerMCPClient
        from langchain_mcp_adapters.tools import load_mcp_tools

        name = state.spec.name
        client = MultiServerMCPClient({name: state.spec.connection})  # type: ignore[dict-item]
        state.stop = asyncio.Event()
        try:
            async with client.session(name) as session:
                state.tools = await load_mcp_tools(session, server_name=name, handle_tool_errors=False)
                state.status = "running"
                state.ready.set()
                await state.stop.wait()
            if state.status == "running":
                state.status = "stopped"
        except asyncio.CancelledError:
            state.status = "stopped" if state.status == "running" else "failed"
            raise
        except BaseException as exc:
            state.status = "failed"
            state.error = describe(exc)
            self.report(state)
        finally:
            state.ready.set()

    def mark_dead(self, name: str, why: str) -> None:
        state = self.servers.get(name)
        if state is None or state.status != "running":
            return
        state.status = "failed"
        state.error = why
        self.report(state)
        if state.stop is not None:  # let its task unwind (closes the transport, reaps the process)
            self.loop.loop.call_soon_threadsafe(state.stop.set)

    def report(self, state: ServerState) -> None:
        """Tell the person once per server that it is unavailable."""
        if state.reported:
            return
        state.reported = True
        if self.on_notice is not None:
            try:
                self.on_notice(f"MCP server {state.spec.name!r} is unavailable: {state.error}")
            except Exception:
                pass

    def close(self, timeout: float = 5.0) -> None:
        """Stop every server (closes stdio pipes → the processes exit) and the loop."""
        if self._loop is None:
            return
        loop = self._loop
        for state in self.servers.values():
            if state.stop is not None:
                loop.loop.call_soon_threadsafe(state.stop.set)
        deadline = time.monotonic() + timeout
        for state in self.servers.values():
            if state.task is not None:
                try:
                    state.task.result(max(0.1, deadline - time.monotonic()))
                except BaseException:
                    state.task.cancel()
            if state.status == "running":
                state.status = "stopped"
        loop.stop()
        self._loop = None

    # -- views ---------------------------------------------------------------------------
    def status(self) -> list[dict[str, Any]]:
        return [s.to_dict() for s in self.servers.values()]

    def state(self, name: str) -> ServerState | None:
        return self.servers.get(name)


def describe(exc: BaseException) -> str:
    """One line for an exception, unwrapping anyio/asyncio exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
