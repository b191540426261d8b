"""One cairn Session behind one editor session: a worker thread for the Session, a queue for
its events.

The Session is synchronous and its SQLite connection belongs to the thread that opened it, so
every call on it runs on this bridge's single worker thread.  The SDK is asyncio: the Session's
``on_event`` (called on the worker thread) hands each event to the event loop with
``call_soon_threadsafe``; there it is translated (``cairn.graph.apps.acp.updates``) and queued, and
one sender task sends the queue in order.  A run's last events are queued before the future of
the run resolves (both go through the loop's callback queue), so ``flush`` after a run sends
everything it produced before the turn's answer.

Cancelling stops the running model call or tool through ``Session.stop`` (what Ctrl-C does) and
ends a permission request the editor has not answered.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from cairn.graph.apps.acp.updates import CallView, translate
from cairn.graph.core import events as ev

T = TypeVar("T")
log = logging.getLogger("cairn.acp")


class SessionBridge:
    def __init__(self, conn: Any, session_id: str, workspace: str) -> None:
        self.conn = conn
        self.id = session_id
        self.loop = asyncio.get_running_loop()
        self.view = CallView(workspace)
        self.session: Any = None
        #: One turn (prompt, or the settling of calls after a load) at a time.
        self.turn = asyncio.Lock()
        self.cancelled = asyncio.Event()
        self._running = False
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"cairn-acp-{session_id[:8]}")
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._sender = self.loop.create_task(self._send_loop())

    # -- the worker thread ------------------------------------------------------------------
    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the worker thread."""
        return await self.loop.run_in_executor(self._executor, fn, *args)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """A Session run (send/decide/continue) on the worker thread; ``cancel`` can stop it."""
        self._running = True
        try:
            return await self.call(fn, *args)
        finally:
            self._running = False

    def on_event(self, event: ev.Event) -> None:
        """The Session's event callback (worker thread): typed events (:mod:`cairn.graph.core.events`)."""
        self.loop.call_soon_threadsafe(self._translate, event)

    def cancel(self) -> None:
        """``session/cancel``: stop the running call, end an unanswered permission request."""
        self.cancelled.set()
        if self._running and self.session is not None:
            self.session.stop()

    def start_turn(self) -> None:
        self.cancelled.clear()

    # -- updates to the editor --------------------------------------------------------------
    def post(self, *updates: Any) -> None:
        for update in updates:
            self._queue.put_nowait(update)

    async def flush(self) -> None:
        """Wait until every queued update was sent."""
        await self._queue.join()

    def _translate(self, event: ev.Event) -> None:
        try:
            self.post(*translate(event, self.view))
        except Exception:  # a display problem never breaks the run
            log.exception("cannot translate the %s event", event.kind)

    async def _send_loop(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(session_id=self.id, update=update)
            except Exception:
                log.exception("cannot send a session update")
            finally:
                self._queue.task_done()

    async def close(self) -> None:
        self._sender.cancel()
        if self.session is not None:
            await self.call(self.session.close)
        self._executor.shutdown(wait=False)
