"""Ctrl-C: the first stops what is running (``session.stop()``), the second exits 130.

A run executes on a worker thread while the main thread waits, so SIGINT never lands in
the middle of the graph: the handler asks the session to stop (the running tool's process
group is killed, the call becomes ``interrupted``, a streaming answer is cut) and the run
returns normally.  A second Ctrl-C, during the stop or at the next prompt, exits at once
with status 130; the checkpoint is already durable, so the session stays resumable.

The session keeps a stop until its run ends (``Session.stop``), so a Ctrl-C that lands before
the graph starts (a few ms after a send) still stops it; the flag is cleared when the action ends.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from cairn.graph.apps.cli.exits import CTRL_C

T = TypeVar("T")


class CtrlC:
    def __init__(self, renderer: Any, on_exit: Callable[[], None] | None = None) -> None:
        self.renderer = renderer
        self.on_exit = on_exit
        #: A Ctrl-C just happened: the next one exits.
        self.armed = False
        #: The last run was stopped by Ctrl-C.
        self.stopped = False
        self._session: Any = None

    def run(self, session: Any, action: Callable[[], T]) -> T:
        """Run ``action`` (a Session call) on a worker thread with Ctrl-C mapped to ``stop()``."""
        self.stopped = False
        self._session = session
        if threading.current_thread() is not threading.main_thread():
            return action()  # signals only reach the main thread (tests drive this in-process)
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["result"] = action()
            except BaseException as exc:  # re-raised on the main thread
                box["error"] = exc

        worker = threading.Thread(target=work, name="cairn-run", daemon=True)
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            worker.start()
            while worker.is_alive():
                worker.join(0.05)
        finally:
            signal.signal(signal.SIGINT, previous)
            # The action is over: a stop asked during it (even before its run began, or by an
            # action that failed before running anything) must not carry over to the next one.
            cancel = getattr(getattr(session, "core", None), "cancel_event", None)
            if cancel is not None:
                cancel.clear()
        self.armed = self.stopped
        if "error" in box:
            raise box["error"]
        return box["result"]

    def at_prompt(self) -> None:
        """Ctrl-C while waiting for input: a hint the first time, exit the second."""
        if self.armed:
            self.exit_now()
        self.armed = True
        self.renderer.note("(Ctrl-C again to exit; Ctrl-D or /exit to leave)")

    def disarm(self) -> None:
        self.armed = False

    def exit_now(self) -> None:
        """Second Ctrl-C: leave immediately, as a crash would; the session stays resumable."""
        try:
            self.renderer.finish()
            if self.on_exit is not None:
                self.on_exit()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(CTRL_C)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.stopped or self.armed:
            self.exit_now()
        self.stopped = True
        if self._session is not None:
            self._session.stop()
        self.renderer.note("⏹ stopping… (Ctrl-C again exits; the session stays resumable)", "yellow")
