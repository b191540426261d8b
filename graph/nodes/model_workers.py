"""Threads that run model calls, kept for the next call instead of one new thread per call.

``call_model`` runs every model request on a worker thread (a stop must take effect while a
slow server has not answered).  Starting a thread costs ~80 µs of CPU, on every step of a
session; a worker that finished its call waits for the next one instead, up to ``MAX_IDLE`` of
them.  A call that was abandoned (stopped, timed out) keeps its worker until it returns: the
next call gets another one.  Not a ``ThreadPoolExecutor``: its bounded pool would queue a
call behind abandoned ones, and its threads are joined at interpreter exit, so a hung
request would keep ``cairn`` from exiting; these workers are daemon threads.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any

#: Idle workers kept; more finish when their call is done.
MAX_IDLE = 4

_lock = threading.Lock()
_idle: list[queue.SimpleQueue] = []


def submit(fn: Callable[..., Any], *args: Any) -> None:
    """Run ``fn(*args)`` on an idle worker, or a new one (a daemon thread). ``fn`` reports its
    own outcome (its exceptions are dropped here)."""
    with _lock:
        inbox = _idle.pop() if _idle else None
    if inbox is None:
        inbox = queue.SimpleQueue()
        threading.Thread(target=_serve, args=(inbox,), name="cairn-model-call", daemon=True).start()
    inbox.put((fn, args))


def _serve(inbox: queue.SimpleQueue) -> None:
    while True:
        fn, args = inbox.get()
        try:
            fn(*args)
        except BaseException:  # fn hands its errors to its caller itself
            pass
        fn = args = None  # nothing of the finished call is kept alive while idle
        with _lock:
            if len(_idle) >= MAX_IDLE:
                return
            _idle.append(inbox)


def _forget_after_fork() -> None:
    """A forked child has none of the parent's threads: its workers are new ones."""
    global _lock
    _lock = threading.Lock()
    _idle.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
