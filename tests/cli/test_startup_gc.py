"""graph/apps/cli/startup.py: the collector is off while ``cairn -p`` loads, and on again after,
however the loading ends."""

from __future__ import annotations

import gc

import pytest

from cairn.graph.apps.cli.startup import quiet_gc


@pytest.fixture(autouse=True)
def _collector_restored():
    enabled = gc.isenabled()
    yield
    gc.unfreeze()  # what a test froze goes back to the collector pytest runs with
    (gc.enable if enabled else gc.disable)()


def test_off_inside_on_after_with_the_loaded_objects_frozen():
    gc.enable()
    frozen = gc.get_freeze_count()
    with quiet_gc():
        assert not gc.isenabled()
        loaded = [{"module": i} for i in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(loaded)


def test_on_again_when_loading_fails():
    gc.enable()
    with pytest.raises(RuntimeError), quiet_gc():
        raise RuntimeError("the model spec is unusable")
    assert gc.isenabled()


def test_a_collector_someone_turned_off_stays_off():
    gc.disable()
    frozen = gc.get_freeze_count()
    with quiet_gc():
        assert not gc.isenabled()
    assert not gc.isenabled()
    assert gc.get_freeze_count() == frozen
