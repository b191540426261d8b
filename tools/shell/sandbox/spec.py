"""What a sandboxed command may see and touch: plain data, filled by the caller.

The tools never import the policy.  The graph turns the policy's verdict (a profile name)
into a :class:`SandboxSpec` and hands it to the ``bash`` tool through ``ToolContext``;
a backend (:mod:`.bwrap`, :mod:`.landlock_backend`) turns the spec into a launch.

Profiles:

* ``read-only``: the whole filesystem read-only (the workspace too), a private writable
  ``/tmp``, no network, the home directory an empty private tmpfs except the workspace and
  ``home_readable`` (read-only), the hidden paths empty or unreadable, the workspace's
  credential files unreadable unless a person approved the call;
* ``workspace-write``: the same, plus ``writable_roots`` (the workspace) writable, except
  ``read_only_paths`` inside them (``.git/hooks``, ``.git/config``, ``.cairn``, ...), which
  cannot be created either when they are missing;
* ``off``: no sandbox; the command runs as the agent's user, as before.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

#: Defaults of the process bounds (settings ``sandbox_max_processes``; the file size is fixed).
DEFAULT_MAX_PROCESSES = 1024
DEFAULT_MAX_FILE_BYTES = 16 * 1024**3

READ_ONLY = "read-only"
WORKSPACE_WRITE = "workspace-write"
OFF = "off"
PROFILES = (READ_ONLY, WORKSPACE_WRITE, OFF)


@dataclass(frozen=True)
class SandboxSpec:
    """One command's sandbox.  Paths are absolute; missing ones are skipped by the backends."""

    profile: str
    #: Directories the command may write (workspace-write: the workspace root).
    writable_roots: tuple[str, ...] = ()
    #: Paths inside ``writable_roots`` that stay read-only (protected: hooks, config, settings)
    #: and, when missing, cannot be created (the backend puts a placeholder there).
    read_only_paths: tuple[str, ...] = ()
    #: Protected directories, read-only like ``read_only_paths``, and created empty when
    #: missing so they can be mounted (an empty directory is invisible to git): ``.cairn``,
    #: ``.git/hooks``.
    placeholder_dirs: tuple[str, ...] = ()
    #: Secret locations shown empty (directories) or unreadable (files).
    hidden_paths: tuple[str, ...] = ()
    #: Directories that must stay visible read-only even under the private /tmp (the workspace).
    visible_roots: tuple[str, ...] = ()
    #: Direct network access: off for every profile (the sandbox's own loopback only).
    network: bool = False
    #: Domains the command may reach through cairn's egress proxy (:mod:`cairn.tools.shell.netproxy`);
    #: empty: no network.  The bash tool opens the lane and fills ``proxy_socket``.
    allowed_domains: tuple[str, ...] = field(default=())
    #: The host path of the command's proxy lane (a Unix socket), bound into the sandbox.
    proxy_socket: str | None = None
    #: The home directory to hide (an empty tmpfs in its place), or ``None`` to leave it (then
    #: only ``hidden_paths`` protect it).  Not hidden when it is a writable or visible root.
    home: str | None = None
    #: Paths under ``home`` shown read-only in the hidden home (toolchains, caches, the install
    #: prefixes of programs on PATH, ``sandbox_readable``); ``hidden_paths`` still cover them.
    home_readable: tuple[str, ...] = ()
    #: ``$XDG_RUNTIME_DIR`` of the command (user services' sockets): an empty tmpfs when it is
    #: not under ``/run`` already.
    runtime_dir: str | None = None
    #: A person approved this very call: the workspace's credential files stay readable.
    #: ``False`` (the read-only profile, rule- or mode-allowed workspace-write): they are hidden.
    person_approved: bool = False
    #: File-name patterns (``fnmatch``, case-folded) of credential files inside the visible
    #: roots, hidden unless ``person_approved``: ``.env*``, ``*.pem``, ``id_*`` ...
    workspace_secrets: tuple[str, ...] = ()
    #: Names of directories not searched for credential files and hard links (caches,
    #: virtualenvs, ``node_modules``: big, and written by package managers, not people).
    scan_skip: tuple[str, ...] = ()
    #: At most this many processes (and threads) at once in the sandbox.
    max_processes: int = DEFAULT_MAX_PROCESSES
    #: The largest file a command may write (``RLIMIT_FSIZE``).
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(
                f"unknown sandbox profile {self.profile!r}; expected one of {', '.join(PROFILES)}"
            )
        if self.proxy_socket and not self.allowed_domains:
            raise ValueError("a proxy lane without allowed domains")
        if self.profile == READ_ONLY and self.writable_roots:
            raise ValueError("a read-only sandbox has no writable roots")
        if self.max_processes < 1 or self.max_file_bytes < 1:
            raise ValueError("max_processes and max_file_bytes must be positive")

    @property
    def enabled(self) -> bool:
        return self.profile != OFF

    @classmethod
    def off(cls) -> SandboxSpec:
        return cls(OFF)

    @classmethod
    def for_workspace(
        cls,
        profile: str,
        root: str | os.PathLike[str],
        *,
        read_only_paths: tuple[str, ...] = (),
        placeholder_dirs: tuple[str, ...] = (),
        hidden_paths: tuple[str, ...] = (),
        **bounds: object,
    ) -> SandboxSpec:
        """The usual spec: ``root`` visible, and writable in ``workspace-write``.

        ``bounds``: the other fields (``home``, ``home_readable``, ``runtime_dir``, ``person_approved``,
        ``workspace_secrets``, ``scan_skip``, ``max_processes``, ``max_file_bytes``).
        """
        root = os.fspath(root)
        if profile == OFF:
            return cls.off()
        writable = (root,) if profile == WORKSPACE_WRITE else ()
        return cls(
            profile,
            writable_roots=writable,
            read_only_paths=read_only_paths if writable else (),
            placeholder_dirs=placeholder_dirs if writable else (),
            hidden_paths=hidden_paths,
            visible_roots=(root,),
            **bounds,  # type: ignore[arg-type]
        )

    def describe(self) -> str:
        """One line for people: what the command can do."""
        if self.profile == OFF:
            return "no sandbox"
        what = "workspace writable" if self.writable_roots else "read-only filesystem"
        home = ", home hidden" if self.home else ""
        net = f"network to {', '.join(self.allowed_domains)} only" if self.allowed_domains else "no network"
        return f"sandbox {self.profile}: {what}, private /tmp{home}, {net}, secrets hidden"
