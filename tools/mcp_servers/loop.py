"""A private asyncio event loop on a background thread, one per session.

MCP tools from langchain-mcp-adapters are async and their sessions are bound to the loop that
opened them, while the graph runs synchronously on the caller's thread (which may itself be
inside Jupyter's running loop).  Every MCP coroutine of a session runs here; the calling
thread waits for it, polling a cancel event so Ctrl-C stops the call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["CallCancelled", "LoopThread"]


class CallCancelled(Exception):
    """The person (or the harness) stopped the call while it ran."""


class LoopThread:
    def __init__(self, name: str = "cairn-mcp") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(
        self,
        coro: Coroutine[Any, Any, T],
        *,
        cancel: threading.Event | None = None,
        timeout: float | None = None,
    ) -> T:
        """Run ``coro`` on the loop and wait; ``cancel`` set → the task is cancelled and
        ``CallCancelled`` raised; ``timeout`` → ``TimeoutError``."""
        future = self.submit(coro)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                if cancel is not None and cancel.is_set():
                    future.cancel()
                    raise CallCancelled from None
                if deadline is not None and time.monotonic() >= deadline:
                    future.cancel()
                    raise TimeoutError(f"no answer after {timeout:.0f} s") from None

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    def stop(self, timeout: float = 5.0) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.loop.close()
