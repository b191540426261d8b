"""The Session API as a notebook uses it: inside a running event loop, ``await asend``, and
``cairn.graph.apps.notebook.enable()`` making ``stream=True`` print to the cell."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import cairn.graph.apps.notebook
from cairn import Session
from cairn.graph.models.scripted import ScriptedChatModel

TURNS = [
    {"content": "Reading.", "tool_calls": [{"name": "read_file", "args": {"file_path": "a.py"}, "id": "r1"}]},
    {"content": ["The file ", "prints one."]},
    {"content": ["Second ", "answer."]},
]


@pytest.fixture
def session(workspace, db_location):
    Path(workspace, "a.py").write_text("print(1)\n")
    s = Session(workspace, model=ScriptedChatModel.from_turns(TURNS), db=db_location)
    yield s
    s.close()


def test_sync_send_inside_a_running_event_loop(session):
    """What a Jupyter cell does: a plain call while the kernel's loop is running."""

    async def cell():
        assert asyncio.get_running_loop().is_running()
        return session.send("what does a.py do?")

    r = asyncio.run(cell())
    assert r.status == "done" and r.text == "The file prints one."
    assert [(c.tool_name, c.status) for c in r.tool_calls] == [("read_file", "success")]


def test_await_asend_and_acontinue(session):
    async def cell():
        first = await session.asend("what does a.py do?")
        again = await session.acontinue()
        second = await session.asend("and now?")
        return first, again, second

    first, again, second = asyncio.run(cell())
    assert first.text == "The file prints one." and again.status == "done"
    assert second.text == "Second answer."


def test_asend_keeps_the_loop_responsive(session):
    """The run happens in a worker thread: other tasks of the loop go on meanwhile."""
    ticks = []

    async def ticker(stop: asyncio.Event) -> None:
        while not stop.is_set():
            ticks.append(threading.get_ident())
            await asyncio.sleep(0.001)

    async def cell():
        stop = asyncio.Event()
        task = asyncio.create_task(ticker(stop))
        r = await session.asend("what does a.py do?")
        stop.set()
        await task
        return r

    assert asyncio.run(cell()).status == "done"
    assert len(ticks) >= 2


def test_enable_makes_stream_true_print_to_the_cell(session, capsys):
    cairn.graph.apps.notebook.enable()
    try:
        session.send("what does a.py do?", stream=True)
    finally:
        cairn.graph.apps.notebook.disable()
    out = capsys.readouterr().out
    assert "The file prints one." in out and "✓ success read_file: " in out
    session.send("and now?", stream=True)  # disabled again: nothing printed
    assert capsys.readouterr().out == ""


def test_enable_always_streams_and_never_overrides_a_callback(session, capsys):
    events = []
    cairn.graph.apps.notebook.enable(always=True)
    try:
        session.send("what does a.py do?", on_event=lambda kind, payload: events.append(kind))
        assert capsys.readouterr().out == "" and "tool_end" in events
        session.send("and now?")
    finally:
        cairn.graph.apps.notebook.disable()
    assert "Second answer." in capsys.readouterr().out


class FakeSession:
    stops = 0

    def stop(self) -> None:
        self.stops += 1


def test_first_interrupt_stops_the_session_second_raises():
    before = signal.getsignal(signal.SIGINT)
    s = FakeSession()
    with pytest.raises(KeyboardInterrupt), cairn.graph.apps.notebook.stop_on_interrupt(s):
        signal.raise_signal(signal.SIGINT)
        assert s.stops == 1
        signal.raise_signal(signal.SIGINT)
    assert s.stops == 1 and signal.getsignal(signal.SIGINT) is before


def test_stop_on_interrupt_leaves_signals_alone_off_the_main_thread():
    seen = []

    def worker():
        with cairn.graph.apps.notebook.stop_on_interrupt(FakeSession()):
            seen.append(signal.getsignal(signal.SIGINT))

    before = signal.getsignal(signal.SIGINT)
    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [before]


def test_interrupt_button_stops_the_running_command(workspace, tmp_path, db_location):
    """With enable(), SIGINT (the kernel's interrupt button) during a command pauses the run cleanly."""
    turns = [{"tool_calls": [{"name": "bash", "args": {"command": "sleep 30"}, "id": "b1"}]}, "ok"]
    s = Session(
        workspace,
        model=ScriptedChatModel.from_turns(turns),
        db=db_location,
        rules={"allow": ["bash(sleep:*)"]},
    )
    before = signal.getsignal(signal.SIGINT)
    cairn.graph.apps.notebook.enable()
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    try:
        started = time.monotonic()
        timer.start()
        r = s.send("go")
        elapsed = time.monotonic() - started
    finally:
        timer.cancel()
        cairn.graph.apps.notebook.disable()
        s.close()
    assert r.status == "interrupted" and [(c.call_id, c.status) for c in r.pending] == [("b1", "interrupted")]
    assert elapsed < 10
    assert signal.getsignal(signal.SIGINT) is before


def test_an_edit_approved_after_resume_changes_a_file_read_before(workspace, tmp_path, db_location):
    calc = Path(workspace, "calc.py")
    calc.write_text("def add(a, b):\n    return a - b\n")
    edit = {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    turns = [
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "calc.py"}}]},
        {"tool_calls": [{"name": "edit_file", "args": edit}]},
        "Fixed.",
    ]
    db = db_location
    first = Session(workspace, model=ScriptedChatModel.from_turns(turns), db=db)
    assert first.send("fix add").status == "awaiting_approval"
    first.close()  # the kernel restarts here
    s = Session.resume(first.id, db=db, model=ScriptedChatModel.from_turns(turns))
    r = s.approve()
    s.close()
    assert [(c.tool_name, c.status) for c in r.tool_calls] == [("edit_file", "success")], r.tool_calls
    assert "a + b" in calc.read_text()


class KernelShell:
    """What ``get_ipython()`` returns inside ipykernel: a shell with a ``kernel``."""

    kernel = object()


class TerminalShell:
    """A terminal IPython shell: no kernel, no display handles."""


@pytest.fixture
def fake_kernel(monkeypatch):
    """Pretend to run inside a kernel, with ``display(..., display_id=True)`` recorded."""
    import IPython
    import IPython.display

    shown: list = []

    class Handle:
        def __init__(self, obj) -> None:
            self.views = [obj]

        def update(self, obj) -> None:
            self.views.append(obj)

    def display(obj, display_id=False):
        shown.append(Handle(obj))
        return shown[-1]

    monkeypatch.setattr(IPython, "get_ipython", lambda: KernelShell())
    monkeypatch.setattr(IPython.display, "display", display)
    return shown


def test_default_event_sink_streams_to_the_cell_in_a_kernel(fake_kernel):
    first, second = cairn.graph.apps.notebook.default_event_sink(), cairn.graph.apps.notebook.default_event_sink()
    assert isinstance(first, cairn.graph.apps.notebook.CellStream) and first.rich is True
    assert first is not second  # one sink per run: a run's display handles are its own


def test_default_event_sink_is_none_outside_a_kernel(monkeypatch):
    import IPython

    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert cairn.graph.apps.notebook.default_event_sink() is None
    monkeypatch.setattr(IPython, "get_ipython", lambda: TerminalShell())
    assert cairn.graph.apps.notebook.default_event_sink() is None
    monkeypatch.delitem(__import__("sys").modules, "IPython")  # a plain script never imported IPython
    assert cairn.graph.apps.notebook.default_event_sink() is None


def test_the_default_sink_shows_a_real_run_in_the_cell(session, fake_kernel):
    """What Session does for ``stream=True`` without ``on_event``: the answer and the tool call
    appear in the cell while the run goes on."""
    r = session.send("what does a.py do?", stream=True, on_event=cairn.graph.apps.notebook.default_event_sink())
    assert r.status == "done"
    final = [repr(handle.views[-1]) for handle in fake_kernel]
    assert final[0] == "Reading." and final[-1] == "The file prints one."
    assert any(v.startswith("✓ success read_file") for v in final), final


def test_enable_still_wins_over_the_default_sink(session, fake_kernel, capsys):
    """enable()'s options apply to stream=True runs in a kernel (here: plain lines to stdout)."""
    cairn.graph.apps.notebook.enable(rich=False)
    try:
        session.send("what does a.py do?", stream=True)
    finally:
        cairn.graph.apps.notebook.disable()
    assert "✓ success read_file" in capsys.readouterr().out and fake_kernel == []
