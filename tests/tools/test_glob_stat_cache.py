"""glob's stat cache: later calls reuse what earlier ones stat-ed, and every change is seen.

Real inotify on real files: each test changes the tree the way an editor, a build or a
person would and checks that glob then reports exactly what a fresh listing reports.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

from cairn.tools.file_ops import listing, stat_cache
from cairn.tools.file_ops.glob import GlobTool
from cairn.tools.file_ops.stat_cache import StatCache, file_system_type
from cairn.tools.services import ToolServices
from cairn.tools.workspace import Workspace

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only")

T0 = 1_700_000_000


@pytest.fixture
def root(workspace) -> Path:
    return Path(workspace)


@pytest.fixture
def services(root):
    svc = ToolServices(Workspace(root))
    assert svc.stat_cache is not None, "inotify-simple is a dependency on Linux"
    yield svc
    svc.close()


def write(root: Path, rel: str, text: str, mtime: int | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def glob_rows(services: ToolServices, pattern: str = "**/*.py") -> list[str]:
    """The rows glob shows (path and size, newest first), after the cache learnt in between
    (the model's thinking time)."""
    rows = GlobTool(services.workspace, services).execute({"pattern": pattern}).output.splitlines()[1:]
    assert services.stat_cache.settle(timeout=30), "the learner did not finish its jobs"
    return rows


def fresh_rows(root: Path, pattern: str = "**/*.py") -> list[str]:
    """What a listing that stats every file shows."""
    svc = ToolServices(Workspace(root))
    svc.__dict__["stat_cache"] = None  # no cache
    return GlobTool(svc.workspace, svc).execute({"pattern": pattern}).output.splitlines()[1:]


@pytest.fixture
def count_lstat(monkeypatch):
    """The files stat-ed by name (bytes), as the listing and the cache's learner do."""
    calls: list[bytes] = []
    real = os.lstat

    def counting(path, *args, **kwargs):
        if isinstance(path, bytes):  # the listing's (and the learner's) file names
            calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(listing.os, "lstat", counting)
    return calls


def test_a_later_glob_stats_no_unchanged_file(services, root, backend, count_lstat):
    for i in range(30):
        write(root, f"pkg/m{i:02}.py", "x" * i, T0 + i)
    first = glob_rows(services)
    assert len(first) == 30 and first[0] == "pkg/m29.py  (29 B)"
    assert services.stat_cache.remembered == 30
    count_lstat.clear()
    assert glob_rows(services) == first
    assert count_lstat == []


def test_a_write_in_place_is_seen(services, root, backend):
    write(root, "a.py", "a", T0)
    write(root, "b.py", "bb", T0 + 10)
    assert glob_rows(services) == ["b.py  (2 B)", "a.py  (1 B)"]
    with open(root / "a.py", "r+") as f:  # same inode, no rename: only IN_MODIFY tells
        f.write("aaaa")
    os.utime(root / "a.py", (T0 + 20, T0 + 20))
    assert glob_rows(services) == ["a.py  (4 B)", "b.py  (2 B)"] == fresh_rows(root)


def test_a_time_change_alone_is_seen(services, root, backend):
    write(root, "a.py", "a", T0)
    write(root, "b.py", "bb", T0 + 10)
    glob_rows(services)
    os.utime(root / "a.py", (T0 + 99, T0 + 99))  # touch: IN_ATTRIB only
    assert glob_rows(services) == ["a.py  (1 B)", "b.py  (2 B)"]


def test_truncate_delete_and_recreate_are_seen(services, root, backend):
    write(root, "src/a.py", "aaaa", T0)
    write(root, "src/b.py", "bbbb", T0 + 1)
    glob_rows(services)
    os.truncate(root / "src/a.py", 1)
    os.utime(root / "src/a.py", (T0, T0))  # same time as before: only the size changed
    (root / "src/b.py").unlink()
    write(root, "src/b.py", "b" * 9, T0 + 1)  # a new file under the old name and time
    assert glob_rows(services) == ["src/b.py  (9 B)", "src/a.py  (1 B)"] == fresh_rows(root)


def test_a_directory_renamed_above_a_known_folder_is_seen(services, root, backend):
    """pkg/sub/x.py is known; pkg is renamed and a new pkg/sub/x.py written with the old time."""
    write(root, "pkg/sub/x.py", "old", T0)
    assert glob_rows(services) == ["pkg/sub/x.py  (3 B)"]
    (root / "pkg").rename(root / "was")
    write(root, "pkg/sub/x.py", "brand new", T0)
    assert glob_rows(services) == ["pkg/sub/x.py  (9 B)", "was/sub/x.py  (3 B)"] == fresh_rows(root)


def test_a_folder_deleted_and_made_again_is_seen(services, root, backend):
    write(root, "d/x.py", "old", T0)
    glob_rows(services)
    (root / "d/x.py").unlink()
    (root / "d").rmdir()
    write(root, "d/x.py", "renewed", T0)
    assert glob_rows(services) == ["d/x.py  (7 B)"]


def test_a_file_with_another_hard_link_is_not_remembered(services, root, tmp_path, backend):
    write(root, "linked.py", "one", T0)
    write(root, "plain.py", "two", T0 + 1)
    outside = tmp_path / "elsewhere.py"
    os.link(root / "linked.py", outside)
    glob_rows(services)
    assert services.stat_cache.remembered == 1
    with open(outside, "a") as f:  # reported to tmp_path's watchers only, not to the root's
        f.write(" and more")
    os.utime(outside, (T0 + 5, T0 + 5))
    assert glob_rows(services) == ["linked.py  (12 B)", "plain.py  (3 B)"]


def test_lost_events_make_it_forget_everything(services, root):
    write(root, "a.py", "a", T0 + 1)
    write(root, "b.py", "b", T0 + 2)
    write(root, "c.py", "c", T0)
    assert glob_rows(services) == ["b.py  (1 B)", "a.py  (1 B)", "c.py  (1 B)"]
    assert services.stat_cache.remembered == 3
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    # Writes alternating between a and b, so the kernel cannot merge their events: the queue
    # overflows, and the change to c below raises no event of its own.
    fds = [os.open(root / name, os.O_WRONLY) for name in ("a.py", "b.py")]
    try:
        for i in range(limit + 10):
            os.pwrite(fds[i % 2], b"z", 0)
    finally:
        for fd in fds:
            os.close(fd)
    for name, mtime in (("a.py", T0 + 1), ("b.py", T0 + 2), ("c.py", T0 + 50)):
        os.utime(root / name, (mtime, mtime))
    assert glob_rows(services) == ["c.py  (1 B)", "b.py  (1 B)", "a.py  (1 B)"] == fresh_rows(root)


def test_a_change_while_learning_is_not_stored_stale(services, root, monkeypatch):
    """The file changes after the learner stat-ed it and a listing drains that event before
    the learner stores its result: the result must not be stored."""
    write(root, "a.py", "a", T0)
    cache = services.stat_cache
    real_stat = StatCache._stat

    def stat_then_change(base_fd, folder, names, dev):
        learnt = list(real_stat(base_fd, folder, names, dev))
        write(root, "a.py", "changed", T0 + 50)
        assert cache.view(root) is not None  # another listing drains the event
        return learnt

    monkeypatch.setattr(StatCache, "_stat", staticmethod(stat_then_change))
    glob_rows(services)
    assert cache.remembered == 0
    monkeypatch.setattr(StatCache, "_stat", staticmethod(real_stat))
    assert glob_rows(services) == ["a.py  (7 B)"]


def test_it_stays_within_its_bounds(services, root, monkeypatch, backend):
    monkeypatch.setattr(stat_cache, "MAX_FILES", 5)
    for i in range(12):
        write(root, f"f{i:02}.py", "x" * (i + 1), T0 + i)
    assert glob_rows(services) == fresh_rows(root)
    assert services.stat_cache.remembered == 5
    assert glob_rows(services) == fresh_rows(root)


def test_it_watches_no_more_directories_than_its_budget(services, root, backend):
    services.stat_cache._max_watches = 2  # the root and a/
    write(root, "top.py", "t", T0)
    write(root, "a/one.py", "1", T0 + 1)
    write(root, "a/b/two.py", "22", T0 + 2)
    assert glob_rows(services) == fresh_rows(root)
    assert services.stat_cache.remembered == 2  # a/b/ would be a third watch
    (root / "a/b/two.py").write_text("grown")
    os.utime(root / "a/b/two.py", (T0 + 3, T0 + 3))
    assert glob_rows(services)[0] == "a/b/two.py  (5 B)"


def test_the_watch_budget_leaves_most_of_the_users_limit_to_other_programs(tmp_path):
    limits = tmp_path / "max_user_watches"
    limits.write_text("8192\n")
    assert stat_cache.watch_budget(limits) == 1024
    limits.write_text("1048576\n")
    assert stat_cache.watch_budget(limits) == stat_cache.MAX_WATCHES
    assert stat_cache.watch_budget(tmp_path / "absent") == 0


def test_not_on_file_systems_that_may_not_report_changes(services, root, monkeypatch):
    monkeypatch.setattr(stat_cache, "LOCAL_FILE_SYSTEMS", frozenset())
    write(root, "a.py", "a", T0)
    assert glob_rows(services) == ["a.py  (1 B)"]
    assert services.stat_cache.remembered == 0


def test_file_system_type_from_mountinfo():
    mountinfo = (
        "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "40 22 0:45 / /mnt/share rw,relatime shared:9 master:2 - nfs4 srv:/export rw,vers=4.2\n"
        "41 22 0:46 / /mnt/odd rw - fuse.sshfs host:/x rw\n"
    )
    assert file_system_type(os.makedev(253, 1), mountinfo) == "ext4"
    assert file_system_type(os.makedev(0, 45), mountinfo) == "nfs4"
    assert file_system_type(os.makedev(0, 46), mountinfo) == "fuse.sshfs"
    assert file_system_type(os.makedev(9, 9), mountinfo) is None


def test_turned_off_by_environment(root, monkeypatch):
    monkeypatch.setenv("CAIRN_NO_STAT_CACHE", "1")
    assert ToolServices(Workspace(root)).stat_cache is None


def test_commands_do_not_inherit_the_inotify_descriptor(services):
    assert os.get_inheritable(services.stat_cache._inotify.fileno()) is False


def test_closing_the_session_drops_its_watches(services, root):
    write(root, "a.py", "a", T0)
    glob_rows(services)
    cache = services.stat_cache
    services.close_stat_cache()
    assert cache._inotify.closed and cache.remembered == 0
    assert glob_rows(services) == ["a.py  (1 B)"]  # a new cache


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_changes_always_match_a_fresh_listing(services, root, seed):
    """Random edits, touches, deletes, renames of files and folders; after each, the cached
    session's glob equals a listing that stats every file."""
    rng = random.Random(seed)
    folders = ["", "a", "a/b", "c", "c/d/e"]
    for i in range(40):
        write(root, f"{rng.choice(folders)}/f{i}.py".lstrip("/"), "x" * rng.randint(0, 50), T0 + i)
    glob_rows(services)
    for step in range(60):
        files = sorted(p for p in root.rglob("*.py"))
        target = rng.choice(files) if files else None
        op = rng.choice(["edit", "touch", "delete", "create", "rename", "move_folder"])
        if op == "edit" and target:
            with open(target, "r+") as f:
                f.write("y" * rng.randint(1, 80))
        elif op == "touch" and target:
            os.utime(target, (T0 + 100 + step, T0 + 100 + step))
        elif op == "delete" and target:
            target.unlink()
        elif op == "create":
            write(root, f"{rng.choice(folders)}/n{step}.py".lstrip("/"), "n" * rng.randint(0, 9), T0 + step)
        elif op == "rename" and target:
            target.rename(target.with_name(f"r{step}.py"))
        elif op == "move_folder":
            src = root / rng.choice(["a", "c", "a/b"])
            if src.is_dir():
                src.rename(root / f"moved{step}")
        assert glob_rows(services) == fresh_rows(root), (step, op)


def test_the_sessions_warm_up_learns_the_workspace_for_the_first_glob(services, root, count_lstat):
    for i in range(20):
        write(root, f"src/p{i % 3}/m{i:02}.py", "x" * i, T0 + i)
    write(root, ".gitignore", "build/\n")
    write(root, "build/gen.py", "ignored", T0)
    services.registry = {"glob": object()}  # a registry offering glob
    services.warm()
    assert services.stat_cache.settle(timeout=30)
    assert services.stat_cache.remembered == 21  # the 20 modules and .gitignore, not build/
    count_lstat.clear()
    rows = glob_rows(services)
    assert count_lstat == []
    assert rows == fresh_rows(root)
    services.warm()  # once a session
    assert services.stat_cache.settle(timeout=30) and services.stat_cache.remembered == 21


def test_no_warm_up_when_glob_is_not_offered(services, root):
    write(root, "a.py", "a", T0)
    services.registry = {"read_file": object()}
    services.warm()
    assert services.stat_cache.settle(timeout=30)
    assert services.stat_cache.remembered == 0


def test_the_warm_up_listing_stops_at_its_bound_or_when_the_session_closes(root):
    from cairn.tools.file_ops import ripgrep
    from cairn.tools.file_ops.walk import make_scope

    for i in range(50):
        write(root, f"f{i:02}.py", "x")
    rg = ripgrep.rg_path()
    names = listing._listed_names(rg, make_scope(root, root), 7, stop=lambda: False)
    assert len(names) == 7 and all((root / os.fsdecode(n)).is_file() for n in names)
    assert len(listing._listed_names(rg, make_scope(root, root), 1000, stop=lambda: False)) == 50
    # The session closed meanwhile: rg is stopped, nothing is listed.
    assert listing._listed_names(rg, make_scope(root, root), 1000, stop=lambda: True) == []


def test_a_warm_up_that_fails_leaves_nothing_learnt_and_raises_nowhere(services, root):
    write(root, "a.py", "a", T0)
    services.registry = {"glob": object()}
    for child in root.iterdir():
        child.unlink()
    root.rmdir()  # the workspace is gone by the time the background job lists it
    services.warm()
    assert services.stat_cache.settle(timeout=30)
    assert services.stat_cache.remembered == 0


def test_the_learner_goes_on_after_a_job_fails(services, root):
    def broken_listing():
        raise OSError("the listing failed")

    services.stat_cache.learn_in_background(broken_listing)
    write(root, "a.py", "a", T0)
    assert glob_rows(services) == ["a.py  (1 B)"]  # (glob_rows waits for the learner)
    assert services.stat_cache.remembered == 1
