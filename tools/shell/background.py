"""Background tasks: commands started with ``run_in_background=true``, read and killed by id."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from cairn.tools.shell.capture import BoundedCapture, Captured
from cairn.tools.shell.command import RunningCommand
from cairn.tools.shell.text import incomplete_utf8_suffix

#: Finished tasks kept for reading; the oldest finished ones are forgotten beyond this.
MAX_FINISHED_TASKS = 50


@dataclass(frozen=True)
class TaskInfo:
    """A plain, serializable view of a task (what the CLI lists)."""

    task_id: str
    command: str
    description: str | None
    status: str  # running | exited | killed | timed_out
    exit_code: int | None
    pid: int
    cwd: str
    started_at: float  # wall clock (time.time())
    duration_s: float
    timeout_s: float | None
    stdout_bytes: int
    stderr_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class BackgroundTask:
    """A running (or finished) background command and the reader's position in its output."""

    def __init__(self, task_id: str, run: RunningCommand, *, description: str | None, cwd: str) -> None:
        self.task_id = task_id
        self.run = run
        self.description = description
        self.cwd = cwd
        self._offsets = {"stdout": 0, "stderr": 0}
        self._read_lock = threading.RLock()

    @property
    def status(self) -> str:
        return self.run.status if self.run.done.is_set() else "running"

    def peek_new(self) -> tuple[Captured, Captured, tuple[int, int]]:
        """Output produced since the last :meth:`advance` (what is still held of it), per stream,
        without consuming it; pass the returned offsets to :meth:`advance`.

        While the task runs, a UTF-8 character split across reads is held back for the
        next read, so CJK text is never cut in half.
        """
        with self._read_lock:
            finished = self.run.done.is_set()
            out, out_end = self._read(self.run.stdout, "stdout", finished)
            err, err_end = self._read(self.run.stderr, "stderr", finished)
            return out, err, (out_end, err_end)

    def advance(self, ends: tuple[int, int]) -> None:
        """Mark output up to ``ends`` (from :meth:`peek_new`) as read."""
        with self._read_lock:
            self._offsets["stdout"] = max(self._offsets["stdout"], ends[0])
            self._offsets["stderr"] = max(self._offsets["stderr"], ends[1])

    def _read(self, capture: BoundedCapture, name: str, finished: bool) -> tuple[Captured, int]:
        got, end = capture.read_since(self._offsets[name])
        if not finished:
            last = got.tail if got.tail else got.head
            held = incomplete_utf8_suffix(last)
            if held:
                end -= held
                if got.tail:
                    got = Captured(got.head, got.tail[:-held], got.omitted, 0, got.total)
                else:
                    got = Captured(got.head[:-held], b"", got.omitted, 0, got.total)
        return got, end

    def info(self) -> TaskInfo:
        run = self.run
        return TaskInfo(
            task_id=self.task_id,
            command=run.command,
            description=self.description,
            status=self.status,
            exit_code=run.exit_code if run.done.is_set() else None,
            pid=run.pid,
            cwd=self.cwd,
            started_at=run.started_wall,
            duration_s=round(run.duration_s, 3),
            timeout_s=run.timeout_s,
            stdout_bytes=run.stdout.total,
            stderr_bytes=run.stderr.total,
        )


class TaskManager:
    """Ids (``bg-1``, ``bg-2``, ...), lookup, listing and stopping of a session's tasks."""

    def __init__(self) -> None:
        self._tasks: dict[str, BackgroundTask] = {}
        self._next = 1
        self._lock = threading.Lock()

    def add(self, run: RunningCommand, *, description: str | None, cwd: str) -> BackgroundTask:
        with self._lock:
            task_id = f"bg-{self._next}"
            self._next += 1
            task = BackgroundTask(task_id, run, description=description, cwd=cwd)
            self._tasks[task_id] = task
            self._evict()
            return task

    def _evict(self) -> None:
        finished = [t for t in self._tasks.values() if t.run.done.is_set()]
        for task in finished[: max(0, len(finished) - MAX_FINISHED_TASKS)]:
            del self._tasks[task.task_id]

    def get(self, task_id: str) -> BackgroundTask | None:
        with self._lock:
            return self._tasks.get(task_id.strip())

    def all(self) -> list[BackgroundTask]:
        with self._lock:
            return list(self._tasks.values())

    def running(self) -> list[BackgroundTask]:
        return [t for t in self.all() if not t.run.done.is_set()]
