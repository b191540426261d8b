"""Notebook helpers: show a run live in the cell, and make ``stream=True`` do that by default.

    from cairn.graph.apps.notebook import stream_to_cell
    r = session.send("fix the test", stream=True, on_event=stream_to_cell())

In a Jupyter kernel the text and one line per tool call are display handles updated in place
(tokens, then the tool's progress lines, then its final status badge with collapsed output and
images). Anywhere else the same events are printed as plain lines.  In a kernel,
``session.send(..., stream=True)`` without ``on_event`` streams to the cell by default (Session
asks ``default_event_sink()``).  ``enable()`` adds options (stream every run, ``stream_to_cell``
settings) and makes the kernel's interrupt button stop the running tool (as Ctrl-C does in the
CLI).  Approval buttons live in ``cairn.graph.apps.notebook.widgets`` (ipywidgets is optional).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cairn.graph.apps.notebook.stream import CellStream, in_kernel
from cairn.graph.apps.notebook.widgets import approval_widget

if TYPE_CHECKING:
    from cairn.graph.session.runner import Runner
    from cairn.graph.session.session import Session

__all__ = [
    "CellStream",
    "approval_widget",
    "connect",
    "default_event_sink",
    "disable",
    "enable",
    "in_kernel",
    "stop_on_interrupt",
    "stream_to_cell",
]


def stream_to_cell(**options: Any) -> CellStream:
    """A fresh ``on_event`` callback for one run (``rich``, ``progress_lines``, ``min_interval``, ``file``)."""
    return CellStream(**options)


def default_event_sink() -> CellStream | None:
    """What ``Session`` uses for ``stream=True`` without ``on_event``: a fresh ``stream_to_cell()``
    inside a Jupyter kernel, so the run shows in the cell as it happens; ``None`` anywhere else
    (scripts, the CLI, a terminal IPython), where the caller decides how to show events."""
    return stream_to_cell() if in_kernel() else None


def connect() -> None:
    """Make ``Session(...).send(..., stream=True)`` without ``on_event`` stream into the cell when
    it runs inside a Jupyter kernel (``default_event_sink``). ``from cairn import Session`` calls
    this in a kernel; ``enable()`` calls it too. Nothing changes outside a kernel."""
    from cairn.graph.session import Session

    Session.default_event_sink = staticmethod(default_event_sink)


_original_run: Any = None


@contextmanager
def stop_on_interrupt(session: Session | Runner) -> Iterator[None]:
    """While the block runs, the first Ctrl-C / Jupyter interrupt (SIGINT) calls ``session.stop()``:
    the running tool is stopped, the call becomes ``interrupted`` and the run returns normally
    (status ``"interrupted"``) instead of raising ``KeyboardInterrupt`` half-way. A second
    interrupt raises ``KeyboardInterrupt`` as usual. Only the main thread can handle signals;
    elsewhere (``asend``'s worker thread) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    presses = 0

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            raise KeyboardInterrupt
        session.stop()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


def enable(*, always: bool = False, interrupt: bool = True, **options: Any) -> None:
    """Notebook defaults for every ``Session`` run (``send``, ``continue_``, decisions):

    - ``stream=True`` without ``on_event`` streams into the cell (``always=True``: every run
      does); ``options`` go to ``stream_to_cell``; a callback you pass is never replaced;
    - ``interrupt=True``: the kernel's interrupt button stops the running tool like Ctrl-C in
      the CLI (see ``stop_on_interrupt``).

    Session has no hook for these defaults, so this wraps ``Runner.run`` (``session.runs.run``,
    the one place every run passes through). ``disable()`` undoes it.
    """
    from cairn.graph.session.runner import Runner

    connect()
    global _original_run
    if _original_run is None:
        _original_run = Runner.run
    original = _original_run

    def _run(self: Runner, payload: Any, stream: bool, on_event: Any, **kwargs: Any) -> Any:
        if on_event is None and (stream or always):
            stream, on_event = True, stream_to_cell(**options)
        if not interrupt:
            return original(self, payload, stream, on_event, **kwargs)
        with stop_on_interrupt(self):
            return original(self, payload, stream, on_event, **kwargs)

    Runner.run = _run  # type: ignore[method-assign]


def disable() -> None:
    """Undo ``enable()``."""
    from cairn.graph.session.runner import Runner

    global _original_run
    if _original_run is not None:
        Runner.run = _original_run  # type: ignore[method-assign]
        _original_run = None
