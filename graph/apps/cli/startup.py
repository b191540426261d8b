"""Start-up CPU of a headless run: the cyclic garbage collector paused while cairn loads.

Loading the agent creates ~half a million objects (a thousand modules, their classes, ~150
pydantic models), nearly none of them garbage; with the default thresholds the collector runs
~250 times meanwhile and re-examines the young ones each time (~55 ms of a ``cairn -p`` run).
:func:`quiet_gc` pauses it for the loading only; afterwards ``gc.freeze()`` moves what was
loaded to the permanent generation (later collections skip it) and collection resumes.  The
window closes before the first model call, so a long run collects as usual.
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
