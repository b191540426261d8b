"""Start-up CPU: the cyclic garbage collector paused while the agent loads — in ``cairn -p`` and
``cairn resume`` until the session is built or opened, in the interactive session and ``cairn
acp`` for their background warm-up (``tui/warmup.py``).

Loading the agent leaves ~150,000 objects the collector tracks (~1,100 modules, their
functions and classes, ~200 pydantic models), nearly none of them garbage; with the default
thresholds the collector runs ~250 times meanwhile (~55 ms of a ``cairn -p`` run's CPU).
:func:`quiet_gc` pauses it for the loading only; afterwards ``gc.freeze()`` moves what was
loaded to the permanent generation (later collections skip it) and collection resumes.  The
window closes before a headless run's first model call (and when a warm-up ends), so a long
run collects as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def quiet_gc() -> Iterator[None]:
    """Collector off inside, on again (with the loaded objects frozen) when the block ends,
    however it ends.  A collector someone else turned off stays off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()
