"""Model calls run on reused worker threads; an abandoned call never holds up the next one."""

from __future__ import annotations

import threading
import time

from cairn.graph.nodes import model_workers


def run_on_worker(fn) -> threading.Thread:
    """The thread ``fn`` ran on, once it has run."""
    ran: list[threading.Thread] = []
    done = threading.Event()

    def job() -> None:
        fn()
        ran.append(threading.current_thread())
        done.set()

    model_workers.submit(job)
    assert done.wait(10)
    return ran[0]


def test_a_finished_call_leaves_its_thread_for_the_next_one():
    before = len(model_workers._idle)  # the call takes one of these, or a new thread
    first = run_on_worker(lambda: None)
    deadline = time.monotonic() + 10
    while len(model_workers._idle) < max(before, 1) and time.monotonic() < deadline:
        time.sleep(0.01)  # the worker goes back to the idle list just after the call returns
    second = run_on_worker(lambda: None)
    assert first.daemon and first.name == "cairn-model-call"
    assert second is first  # the most recently idle worker takes the next call


def test_a_call_still_running_does_not_delay_the_next():
    release = threading.Event()
    started = threading.Event()

    def stuck() -> None:
        started.set()
        release.wait(30)

    model_workers.submit(stuck)
    assert started.wait(10)
    try:
        quick = run_on_worker(lambda: None)  # another worker: the stuck one is busy
        assert quick.is_alive()
    finally:
        release.set()


def test_errors_stay_with_the_call_and_the_worker_goes_on():
    def boom() -> None:
        raise RuntimeError("the call reports this itself")

    model_workers.submit(boom)
    assert run_on_worker(lambda: None).is_alive()


def test_idle_workers_are_bounded():
    for _ in range(3 * model_workers.MAX_IDLE):
        run_on_worker(lambda: None)
    assert len(model_workers._idle) <= model_workers.MAX_IDLE
