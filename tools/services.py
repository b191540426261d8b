"""Session-scoped state shared by the built-in tools of one session.

Tools of one session share one ``ToolServices``: what files were read (for
stale-write checks), the shell's working directory and background tasks, and
the URL guard the web tool calls on every redirect hop.  Created by
``cairn.tools.create_default_tools``; nothing here is global.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cairn.tools.file_ops.names import escape_text
from cairn.tools.workspace import Workspace

if TYPE_CHECKING:
    from cairn.tools.file_ops.stat_cache import StatCache
    from cairn.tools.shell.netproxy.proxy import EgressProxy
    from cairn.tools.shell.state import ShellState
    from cairn.tools.web.search.config import SearchConfig

#: Called before every request and redirect hop: ``None`` when the URL may be fetched,
#: ``"deny: <reason>"`` to refuse it, ``"ask: <reason>"`` when a person must approve it (a redirect
#: hop then stops and the model is told to fetch that URL itself), a plain reason = deny.
#: A guard that also takes ``addresses=`` keyword gets the host's addresses, resolved once by the
#: web tool, which then connects only to them (DNS pinning).
UrlGuard = Callable[..., str | None]


class SubagentHost(Protocol):
    """What the sub-agent tools need from the session (``cairn.graph.session.subagent``)."""

    def start(self, request: dict[str, Any], ctx: Any) -> dict[str, Any]:
        """Run or start a child for ``agent``'s arguments: a report dict (``text``, ``status``,
        ``agent_id``, ``tool_calls``, ``error``; ``status == "running"`` for background)."""
        ...

    def status(self, agent_id: str) -> dict[str, Any] | None: ...

    def list(self) -> list[dict[str, Any]]: ...

    def merge(self, agent_id: str) -> dict[str, Any]: ...


#: ``summarize(url, question, page_markdown) -> PageSummary``; raises on failure.
PageSummarizer = Callable[[str, str, str], "PageSummary"]


@dataclass(frozen=True)
class PageSummary:
    """A model's answer about a page, and what the call cost (counted in the session's usage)."""

    text: str
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0


class FileAccess(Protocol):
    """Where the file tools read and write text when an editor owns the files (``cairn acp``
    with a client that offers ``fs/read_text_file``/``fs/write_text_file``): its buffers,
    unsaved changes included.  ``None`` / ``False``: not handled, the tools use the disk."""

    def read_text(self, path: Path) -> str | None: ...

    def write_text(self, path: Path, text: str) -> bool: ...


@dataclass(frozen=True)
class ReadRecord:
    path: str
    mtime_ns: int
    size: int
    sha256: str


class FileReadTracker:
    """What was read, so a write can refuse to clobber a file it has not seen or that changed."""

    def __init__(self, on_record: Callable[[ReadRecord], None] | None = None) -> None:
        self._records: dict[str, ReadRecord] = {}
        self._lock = threading.Lock()
        #: Called with every new record (the session persists them so they survive restarts).
        self.on_record = on_record

    @staticmethod
    def key(path: Path) -> str:
        """The record's name for ``path``: undecodable bytes escaped, so the store can hold it."""
        return escape_text(str(path))

    def seed(self, records: Iterable[tuple[str, int, int, str]]) -> None:
        """Restore records saved by an earlier process of the same session."""
        with self._lock:
            for path, mtime_ns, size, sha in records:
                self._records[path] = ReadRecord(path, mtime_ns, size, sha)

    def record(self, path: Path, data: bytes | None = None) -> ReadRecord:
        st = path.stat()
        if data is None:
            data = path.read_bytes()
        rec = ReadRecord(self.key(path), st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest())
        with self._lock:
            self._records[rec.path] = rec
        if self.on_record is not None:
            self.on_record(rec)
        return rec

    def get(self, path: Path) -> ReadRecord | None:
        with self._lock:
            return self._records.get(self.key(path))

    def forget(self, path: Path) -> None:
        with self._lock:
            self._records.pop(self.key(path), None)

    def stale_reason(self, path: Path) -> str | None:
        """Why overwriting ``path`` now would be unsafe, or ``None`` if it is fine.

        A file that does not exist is always fine.  An existing file must have been
        read in this session and be unchanged since (same size and hash; an mtime
        change alone with identical bytes is accepted).
        """
        if not path.exists():
            return None
        rec = self.get(path)
        if rec is None:
            return (
                f"{path} exists but has not been read in this session. "
                "Read it with read_file first, then write or edit it."
            )
        st = path.stat()
        if st.st_mtime_ns == rec.mtime_ns and st.st_size == rec.size:
            return None
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest == rec.sha256:
            return None
        return (
            f"{path} was modified on disk since it was last read (by the user or another "
            "process). Read it again with read_file before changing it."
        )


@dataclass
class ToolServices:
    workspace: Workspace
    url_guard: UrlGuard | None = None
    #: Provided by the graph so the ``agent`` tools can start and follow sub-agents.
    subagents: SubagentHost | None = None
    #: Extra environment variable names (or fnmatch patterns) withheld from shell commands.
    secret_env_patterns: tuple[str, ...] = ()
    #: Variables every shell command gets on top of cairn's environment (``Settings.shell.env``).
    shell_env: dict[str, str] = field(default_factory=dict)
    reads: FileReadTracker = field(default_factory=FileReadTracker)
    #: The web search provider (``None``: ``web_search`` is not offered).
    search_config: SearchConfig | None = None
    #: Test seam: an httpx transport for search requests instead of the network.
    search_transport: Any = None
    #: Provided by the graph: answers a question from a long fetched page with a model call.
    summarize: PageSummarizer | None = None
    #: ``web_fetch`` with a ``prompt`` summarises pages whose Markdown is longer than this.
    summarize_over_chars: int = 4096
    #: The session's whole tool registry (``tool_search`` ranks and loads deferred tools from it).
    registry: Any = None
    #: Names pinned to addresses for sandboxed commands' network (the person's settings
    #: ``[sandbox] network_hosts``): the egress proxy connects there without DNS.
    network_hosts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Test seam: the egress proxy's resolver (``None``: the system's).
    network_resolver: Any = None
    #: The editor's files (issue 33, ``cairn acp``); ``None``: read_file/edit_file/write_file use the disk.
    files: FileAccess | None = None
    _stat_cache_warmed: bool = field(default=False, init=False, repr=False)

    @cached_property
    def shell(self) -> ShellState:
        from cairn.tools.shell.state import ShellState

        return ShellState(
            self.workspace, extra_secret_patterns=self.secret_env_patterns, env_overrides=self.shell_env
        )

    @cached_property
    def egress(self) -> EgressProxy:
        """The session's egress proxy for sandboxed commands granted domains (started lazily)."""
        from cairn.tools.shell.netproxy.proxy import EgressProxy

        return EgressProxy(resolver=self.network_resolver, hosts=self.network_hosts)

    @cached_property
    def stat_cache(self) -> StatCache | None:
        """File times and sizes glob need not stat again (``None``: not available here)."""
        from cairn.tools.file_ops.stat_cache import StatCache

        return StatCache.open()

    def warm(self, *, writing: bool = True) -> None:
        """Start in the background what the first calls would otherwise wait for: the git
        snapshot a writing shell command compares against (when ``bash`` is offered and the
        run may write), the times and sizes of the workspace's files for glob (when ``glob``
        is, once a session)."""
        if writing and self.registry is not None and self.registry.get("bash") is not None:
            self.shell.changes.warm()
        if self.registry is not None and self.registry.get("glob") is not None:
            self.warm_stat_cache()

    def warm_stat_cache(self) -> None:
        """Have the stat cache learn the workspace's files in the background (once)."""
        if self._stat_cache_warmed or self.stat_cache is None:
            return
        from cairn.tools.file_ops.listing import warm_stat_cache

        self._stat_cache_warmed = True
        warm_stat_cache(self.workspace.root, self.stat_cache)

    def close(self) -> None:
        """Stop what the session started (background shell tasks, the stat cache's watches)."""
        if "shell" in self.__dict__:
            self.shell.close()
        if "egress" in self.__dict__:
            self.__dict__.pop("egress").close()
        self.close_stat_cache()

    def close_stat_cache(self) -> None:
        """Drop the stat cache's inotify watches (a later glob starts a new cache)."""
        cache = self.__dict__.pop("stat_cache", None)
        self._stat_cache_warmed = False
        if cache is not None:
            cache.close()
