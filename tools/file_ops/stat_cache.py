"""Files' mtimes and sizes remembered between globs, kept valid by inotify watches.

glob lists files with rg on every call (which files exist is never remembered), but it also
``lstat``-s every match to sort them newest first, ~3 µs a file: a third of a large glob's time.
The files a listing had to stat are learnt afterwards, in a background thread (while the
model reads the result): their directory and every directory above it up to the search base
are watched with inotify first, then the files are stat-ed again and remembered. Any later
write, truncate, attribute change, create, delete or rename there — or a rename or delete of a
directory on the way — makes the cache forget them before the next listing reads it: the
kernel queues the event in the very system call that makes the change, and each listing first
drains the queue.

Nothing is remembered where a watch could miss a change: on file systems other than local
disks (NFS, FUSE, 9p, virtiofs report no remote changes), for files with more than one hard
link (a write through another name is reported to that name's directory), on another device
than the search base. Two changes raise no event here: one made only through a shared memory
map, and one through a hard link made in another directory after the file was remembered; such
a file keeps its old time and size here until anything else changes it. Linux only; elsewhere,
or with ``CAIRN_NO_STAT_CACHE=1``, every file is stat-ed on every call.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from queue import SimpleQueue

#: Per file: (-mtime_ns, size), as listing entries carry them.
Known = tuple[int, int]

#: Local file systems whose every change raises an inotify event.
LOCAL_FILE_SYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "zfs", "bcachefs", "overlay", "jfs"}
)
#: Bounds for one session: past them files are stat-ed every time (never an error).
MAX_FILES = 100_000
MAX_WATCHES = 20_000
#: At most this share of the user's inotify watches (``fs.inotify.max_user_watches``, shared by
#: every program of the user: editors and file watchers need theirs).
WATCH_SHARE = 8


def watch_budget(limits: Path = Path("/proc/sys/fs/inotify/max_user_watches")) -> int:
    """How many directories one session may watch."""
    try:
        return min(MAX_WATCHES, int(limits.read_text()) // WATCH_SHARE)
    except (OSError, ValueError):
        return 0


def file_system_type(dev: int, mountinfo: str) -> str | None:
    """The type of the file system mounted as device ``dev``, from /proc/self/mountinfo text."""
    want = f"{os.major(dev)}:{os.minor(dev)}"
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == want and "-" in fields:
            rest = fields[fields.index("-") + 1 :]
            return rest[0] if rest else None
    return None


class StatCache:
    """One session's remembered ``lstat`` results, by absolute directory, then file name."""

    def __init__(self) -> None:
        from inotify_simple import INotify, flags

        self._inotify = INotify(nonblocking=True)  # close-on-exec: commands never inherit it
        self._mask = (
            flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.CREATE | flags.DELETE | flags.MOVED_FROM
        ) | (flags.MOVED_TO | flags.DELETE_SELF | flags.MOVE_SELF | flags.ONLYDIR | flags.DONT_FOLLOW)
        self._flags = flags
        self._lock = threading.Lock()
        self._files: dict[bytes, dict[bytes, Known]] = {}
        self._wd_of: dict[bytes, int] = {}
        self._dir_of: dict[int, bytes] = {}
        self._children: dict[bytes, set[bytes]] = {}  # watched directories by parent path
        self._bases: dict[bytes, tuple[int, int]] = {}  # base -> (st_dev, st_ino) when first used
        self._local: dict[int, bool] = {}
        self._count = 0
        #: Bumped by every drain that took in events: a file stat-ed before may have changed
        #: after its stat with the event now gone, so what was stat-ed before is not stored.
        self._epoch = 0
        self._max_watches = watch_budget()
        #: The learner: one daemon thread (learning is only ever a saving; an exit never waits
        #: for it) taking jobs in order; ``None`` in the queue ends it.
        self._learner: threading.Thread | None = None
        self._queue: SimpleQueue[Callable[[], None] | None] = SimpleQueue()
        self._unfinished = 0
        self._settled = threading.Condition(self._lock)

    @classmethod
    def open(cls) -> StatCache | None:
        """A cache, or ``None`` where inotify is unavailable or turned off."""
        if not sys.platform.startswith("linux") or os.environ.get("CAIRN_NO_STAT_CACHE"):
            return None
        try:
            return cls()
        except (ImportError, OSError):  # no package, or the user's inotify instances are used up
            return None

    def view(self, base: Path) -> StatView | None:
        """The cache for paths relative to ``base``, after taking in every queued change;
        ``None`` when changes there might go unreported."""
        raw = os.fsencode(base)
        try:
            st = os.stat(raw)
        except OSError:
            return None
        with self._lock:
            if self._inotify.closed or not self._is_local(st.st_dev):
                return None
            self._drain()
            if self._bases.setdefault(raw, (st.st_dev, st.st_ino)) != (st.st_dev, st.st_ino):
                self._forget_tree(raw)  # the base path now names another directory
                self._bases[raw] = (st.st_dev, st.st_ino)
            return StatView(self, raw, st.st_dev)

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until what listings handed over is learnt (tests and benchmarks); False if
        ``timeout`` seconds passed first."""
        with self._lock:
            return self._settled.wait_for(lambda: self._unfinished == 0, timeout)

    @property
    def closed(self) -> bool:
        return self._inotify.closed

    @property
    def remembered(self) -> int:
        """How many files are remembered now."""
        return self._count

    def close(self) -> None:
        """Drop the watches and what is remembered; a job still running stores nothing more."""
        with self._lock:
            self._inotify.close()
            self._files.clear()
            self._wd_of.clear()
            self._dir_of.clear()
            self._children.clear()
            self._count = 0
            if self._learner is not None:
                self._queue.put(None)
                self._learner = None

    def learn_in_background(self, list_files: Callable[[], tuple[Path, list[bytes]]]) -> None:
        """Learn, in the background thread, the files ``list_files()`` gives (a base and names
        relative to it): a session's warm-up, so that its first glob finds them known. An error
        there only leaves them unlearnt."""

        def learn_listed() -> None:
            base, names = list_files()
            view = self.view(base)
            if view is not None:
                self._learn(view._base, view._dev, [names[:MAX_FILES]])

        self._submit(learn_listed)

    def _learn_later(self, base: bytes, dev: int, missed: list[list[bytes]]) -> None:
        self._submit(lambda: self._learn(base, dev, missed))

    def _submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            if self._inotify.closed:
                return
            if self._learner is None:
                self._learner = threading.Thread(target=self._run_jobs, name="cairn-stat-cache", daemon=True)
                self._learner.start()
            self._unfinished += 1
            self._queue.put(job)

    def _run_jobs(self) -> None:
        while (job := self._queue.get()) is not None:
            try:
                job()
            except Exception:  # (a file gone, a listing failed: those stay unlearnt)
                pass
            finally:
                with self._lock:
                    self._unfinished -= 1
                    self._settled.notify_all()

    def _learn(self, base: bytes, dev: int, missed: list[list[bytes]]) -> None:
        """Watch each folder (and those above it) first, then stat its files and store them
        unless a drain took in events meanwhile."""
        by_folder: dict[bytes, list[bytes]] = {}
        for batch in missed:
            for rel in batch:
                folder, _, name = rel.rpartition(b"/")
                by_folder.setdefault(folder, []).append(name)
        try:
            base_fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:  # gone meanwhile
            return
        try:
            for folder, names in by_folder.items():
                path = base + b"/" + folder if folder else base
                with self._lock:
                    epoch = self._epoch
                    if self._inotify.closed or self._count >= MAX_FILES or not self._watch_chain(base, path):
                        continue
                learnt = dict(self._stat(base_fd, folder, names, dev))
                with self._lock:
                    if self._epoch == epoch and path in self._wd_of:
                        self._store(path, learnt)
        finally:
            os.close(base_fd)

    @staticmethod
    def _stat(base_fd: int, folder: bytes, names: list[bytes], dev: int) -> Iterable[tuple[bytes, Known]]:
        prefix = folder + b"/" if folder else b""
        for name in names:
            try:
                st = os.lstat(prefix + name, dir_fd=base_fd)
            except OSError:
                continue
            if st.st_nlink == 1 and st.st_dev == dev:
                yield name, (-st.st_mtime_ns, st.st_size)

    # -- under the lock ---------------------------------------------------------------------

    def _store(self, path: bytes, learnt: dict[bytes, Known]) -> None:
        known = self._files.setdefault(path, {})
        for name, value in learnt.items():
            if name not in known:
                if self._count >= MAX_FILES:
                    continue
                self._count += 1
            known[name] = value

    def _is_local(self, dev: int) -> bool:
        if dev not in self._local:
            try:
                mountinfo = Path("/proc/self/mountinfo").read_text()
            except OSError:
                mountinfo = ""
            self._local[dev] = file_system_type(dev, mountinfo) in LOCAL_FILE_SYSTEMS
        return self._local[dev]

    def _drain(self) -> None:
        while events := self._inotify.read(timeout=0):
            self._epoch += 1
            for wd, mask, _cookie, name in events:
                self._apply(wd, mask, os.fsencode(name))

    def _apply(self, wd: int, mask: int, name: bytes) -> None:
        f = self._flags
        if mask & f.Q_OVERFLOW:  # events were lost: nothing remembered can be trusted
            self._files.clear()
            self._count = 0
            return
        where = self._dir_of.get(wd)
        if where is None:  # a watch already given up
            return
        # A watched folder moved or deleted is reported twice: to itself (no name) and to its
        # watched parent (its name, ISDIR). Either is enough; both are heeded.
        if not name or mask & f.IGNORED:  # the directory itself was moved or deleted
            self._forget_tree(where)
        elif mask & f.ISDIR:
            if mask & (f.DELETE | f.MOVED_FROM | f.MOVED_TO):  # (a new one holds nothing known)
                self._forget_tree(where + b"/" + name)
        else:
            known = self._files.get(where)
            if known is not None and known.pop(name, None) is not None:
                self._count -= 1

    def _forget_tree(self, top: bytes) -> None:
        """Forget the files under ``top`` and stop watching its directories (their paths may
        now name other directories)."""
        self._children.get(top.rpartition(b"/")[0], set()).discard(top)
        stack = [top]
        while stack:
            path = stack.pop()
            stack.extend(self._children.pop(path, ()))
            self._count -= len(self._files.pop(path, {}))
            wd = self._wd_of.pop(path, None)
            if wd is None:
                continue
            self._dir_of.pop(wd, None)
            try:
                self._inotify.rm_watch(wd)
            except OSError:  # already gone with its directory
                pass

    def _watch_chain(self, base: bytes, path: bytes) -> bool:
        """Watch ``path`` and every directory above it up to ``base``, top down: once a
        directory is watched, a rename of anything inside it is seen."""
        chain = [path]
        while path != base:
            path = path.rpartition(b"/")[0]
            chain.append(path)
        return all(self._watch(p) for p in reversed(chain))

    def _watch(self, path: bytes) -> bool:
        if path in self._wd_of:
            return True
        if len(self._wd_of) >= self._max_watches:
            return False
        try:
            wd = self._inotify.add_watch(path, self._mask)
        except OSError:  # gone, not a directory, or the user's watch limit reached
            return False
        old = self._dir_of.get(wd)
        if old is not None and old != path:  # the same directory, moved: its old path is stale
            self._forget_tree(old)  # (which also drops this watch)
            return self._watch(path)
        self._wd_of[path] = wd
        self._dir_of[wd] = path
        self._children.setdefault(path.rpartition(b"/")[0], set()).add(path)
        return True


class StatView:
    """The cache as one listing under one base sees it: folders are base-relative bytes
    (``b""`` for the base itself), names are file names in them."""

    def __init__(self, cache: StatCache, base: bytes, dev: int) -> None:
        self._cache = cache
        self._base = base
        self._dev = dev
        self._stated: list[list[bytes]] = []

    def known_in(self, folder: bytes) -> dict[bytes, Known] | None:
        """What the files of ``folder`` were when last stat-ed, if nothing changed them since
        (read without the lock: a dict lookup is atomic)."""
        return self._cache._files.get(self._base + b"/" + folder if folder else self._base)

    @property
    def knows_files(self) -> bool:
        """Whether anything is remembered at all (a session's first listing skips the lookups)."""
        return self._cache._count > 0

    def note(self, stated: list[bytes]) -> None:
        """Note base-relative names the listing stat-ed itself (called from several threads:
        ``list.append`` is atomic)."""
        if stated:
            self._stated.append(stated)

    def learn_later(self) -> None:
        """Have the noted files learnt in the background."""
        stated, self._stated = self._stated, []
        if stated:
            self._cache._learn_later(self._base, self._dev, stated)
