"""Item 5 of issue 26 under bubblewrap: a command's processes are bounded (a pids cgroup; the
fallback RLIMIT_NPROC does not bind root), its files are bounded in size, and whatever it
started ends with it.  The probe spawns sleeping children until refused, capped at 2,000
attempts, and kills them after - never a real fork bomb."""

from __future__ import annotations

import os
import sys
import time

import pytest

from cairn.tools.shell.sandbox import limits
from tests.shell.sandbox.deny_default import bwrap_tools, text


@pytest.fixture
def bw(area):
    yield from bwrap_tools(area)


_SPAWN = r"""
import subprocess, sys
sleep, cap = sys.argv[1], int(sys.argv[2])
children = []
try:
    while len(children) < cap:
        children.append(subprocess.Popen([sleep, "30"]))
except OSError as exc:
    print("REFUSED", exc.errno)
print("SPAWNED", len(children))
for child in children:
    child.kill()
for child in children:
    child.wait()
"""


def _sleep(area, process_guard) -> str:
    """The guard's marked ``sleep``, outside /tmp (the sandbox's private /tmp hides the guard's)."""
    marked = area.base / process_guard.token
    if not marked.exists():
        marked.mkdir()
        (marked / "sleep").symlink_to(os.path.realpath("/bin/sleep"))
    return str(marked / "sleep")


def _spawned(result) -> int:
    for line in text(result).splitlines():
        if line.startswith("SPAWNED "):
            return int(line.split()[1])
    raise AssertionError(f"the probe did not report: {text(result)}")


def test_the_process_bound_holds_and_everything_ends_with_the_command(bw, area, process_guard):
    if limits.process_bound() == "none":
        pytest.skip("no pids cgroup here and RLIMIT_NPROC does not bind root (documented)")
    (area.base / "spawn.py").write_text(_SPAWN)
    probe = f"'{sys.executable}' '{area.base / 'spawn.py'}' '{_sleep(area, process_guard)}' 2000"
    result = bw.run(probe, "workspace-write", max_processes=64)
    spawned = _spawned(result)
    assert "REFUSED" in text(result) and 10 <= spawned < 64, text(result)
    assert process_guard.wait_none_marked(timeout=10.0) == []
    control = bw.run(probe.replace(" 2000", " 100"), "workspace-write")  # the default bound: 1,024
    assert _spawned(control) == 100 and "REFUSED" not in text(control)
    assert process_guard.wait_none_marked(timeout=10.0) == []


def test_sleepers_left_behind_die_with_the_command(bw, area, process_guard):
    sleep = _sleep(area, process_guard)
    result = bw.run(f"for i in 1 2 3; do setsid '{sleep}' 300 & done; echo started", "read-only")
    assert "started" in text(result)
    assert process_guard.wait_none_marked(timeout=10.0) == []


def test_the_file_size_bound(bw, area):
    result = bw.run(
        "head -c 3000000 /dev/zero > big.bin; echo done", "workspace-write", max_file_bytes=1_000_000
    )
    assert os.path.getsize(area.ws / "big.bin") <= 1_000_000, text(result)
    bw.run("head -c 3000000 /dev/zero > big.bin", "workspace-write")  # control: the default bound
    assert os.path.getsize(area.ws / "big.bin") == 3_000_000


def test_the_cgroup_is_removed_after_the_command(bw):
    base = limits._cgroup_base()
    if base is None:
        pytest.skip("no pids cgroup on this machine")
    bw.run("true", "read-only")
    mine = f"cmd-{os.getpid()}-"
    for _ in range(100):
        if not [d for d in os.listdir(base) if d.startswith(mine)]:
            break
        time.sleep(0.05)
    assert not [d for d in os.listdir(base) if d.startswith(mine)]
