"""Resolving the common flags against the environment, and the checks that fail fast (exit 2)."""

from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import dataclass
from typing import Any

from cairn.graph.apps.cli.exits import USAGE, CliError


@dataclass
class Options:
    """The common flags after ``$CAIRN_MODEL`` / ``$OPENAI_BASE_URL`` / ``$CAIRN_DB`` are applied."""

    model: str | None = None
    base_url: str | None = None
    db: str | None = None
    approval: str | None = None
    max_steps: int = 100
    workspace: str = "."
    verbose: bool = False
    tools: str | None = None
    #: ``--plain``: no colors and no rendered Markdown, even on a TTY.
    plain: bool = False
    #: MCP config files (--mcp-config) and --trust-project-mcp, passed to every Session.
    mcp_config: tuple[str, ...] = ()
    trust_project_mcp: bool = False
    trust_project_hooks: bool = False  # -- hooks (issue 32)
    context_window: int | None = None
    #: ``--max-cost``: dollars a run may spend (issue 34).
    max_cost: float | None = None
    #: Flags the person typed (repeated in the ``cairn resume`` hint; env vars persist by themselves).
    explicit: tuple[str, ...] = ()

    @classmethod
    def from_args(cls, ns: argparse.Namespace) -> Options:
        explicit: list[str] = []
        db = _absolute_db(ns.db) if ns.db else None
        if db:
            explicit += ["--db", db]
        if ns.base_url:
            explicit += ["--base-url", ns.base_url]
        if getattr(ns, "tools", None):
            explicit += ["--tools", ns.tools]
        mcp_config = tuple(os.path.abspath(f) for f in getattr(ns, "mcp_config", None) or ())
        for file in mcp_config:
            explicit += ["--mcp-config", file]
        trust = bool(getattr(ns, "trust_project_mcp", False))
        if trust:
            explicit += ["--trust-project-mcp"]
        trust_hooks = bool(getattr(ns, "trust_project_hooks", False))  # -- hooks (issue 32)
        if trust_hooks:
            explicit += ["--trust-project-hooks"]
        context_window = getattr(ns, "context_window", None)
        if context_window:
            explicit += ["--context-window", str(context_window)]
        max_cost = getattr(ns, "max_cost", None)
        if max_cost:
            explicit += ["--max-cost", str(max_cost)]
        return cls(
            max_cost=max_cost,
            model=ns.model or None,  # unset: default_model_spec() ($CAIRN_MODEL, $OPENAI_MODEL ...)
            base_url=ns.base_url or os.environ.get("OPENAI_BASE_URL") or None,
            db=db,
            approval=ns.approval,
            max_steps=ns.max_steps or 100,
            workspace=ns.workspace or ".",
            verbose=bool(ns.verbose),
            tools=getattr(ns, "tools", None),
            plain=bool(getattr(ns, "plain", False)),
            mcp_config=mcp_config,
            trust_project_mcp=trust,
            trust_project_hooks=trust_hooks,
            context_window=context_window,
            explicit=tuple(explicit),
        )

    def session_kwargs(self) -> dict[str, object]:
        """What every Session the CLI opens gets from the flags: the extension flags and the
        ``Settings`` overrides (``--tools``, ``--context-window``, ``--base-url``); nothing goes
        through ``os.environ``."""
        kwargs: dict[str, object] = {
            "mcp_config": self.mcp_config,
            "trust_project_mcp": self.trust_project_mcp,
            "trust_project_hooks": self.trust_project_hooks,  # -- hooks (issue 32)
        }
        if self.max_cost is not None:  # issue 34: --max-cost
            kwargs["max_cost"] = self.max_cost
        if self.tools:
            kwargs["tool_profile"] = self.tools
        if self.context_window:
            kwargs["context_window"] = self.context_window
        overrides = self.overrides()
        if overrides:
            kwargs["overrides"] = overrides
        return kwargs

    def overrides(self) -> dict[str, dict[str, object]]:
        """The flags that are ``Settings`` overrides without a Session keyword of their own."""
        return {"model": {"base_url": self.base_url}} if self.base_url else {}

    def settings(self) -> Any:
        """The ``Settings`` of the workspace with these flags applied (commands without a Session)."""
        from cairn.graph.core.settings import load_settings

        return load_settings(
            self.workspace_root(),
            overrides={
                **self.overrides(),
                "tools": {"profile": self.tools},
                "context": {"window": self.context_window},
            },
        )

    @property
    def in_memory(self) -> bool:
        """The session lives in a private in-memory database: gone when cairn exits."""
        from cairn.checkpoints.location import resolve_location

        return resolve_location(self.db) == ":memory:"

    def check_storage(self, *, create: bool = True, writes: bool | None = None) -> None:
        """Fail with exit 2 (and a plain message) when the database cannot be opened or created.

        ``create=False`` for readers: a database that does not exist yet just has no sessions.
        ``writes`` (default: ``create``): the command writes, so a read-only database file or
        directory is refused up front with the reason, not half-way with SQLite's words.
        """
        from cairn.checkpoints.location import resolve_location

        location = resolve_location(self.db)
        if location == ":memory:" or "://" in location:  # URLs: open_store explains them
            return
        if self.db and not os.path.exists(location):  # --db given: a typo must not make directories
            parent = os.path.dirname(os.path.abspath(location))
            if not os.path.isdir(parent):  # a typo, most likely: no directories are made for it
                raise CliError(f"cannot create the database at {location}: no directory {parent}", USAGE)
            if not create:
                raise CliError(f"no database at {location} (nothing was saved there yet)", USAGE)
        check_database_path(location, create=create, writes=create if writes is None else writes)

    def workspace_root(self) -> str:
        path = os.path.realpath(os.path.abspath(os.path.expanduser(self.workspace)))
        if not os.path.isdir(path):
            raise CliError(f"workspace {self.workspace!r} is not a directory", USAGE)
        return path

    def model_spec(self) -> str:
        """The spec to record in the session (explicit, so ``resume`` rebuilds the same model)."""
        from cairn.graph.models import default_model_spec

        spec = self.model or default_model_spec()
        if spec.startswith("script:"):  # absolute, so resuming from another directory finds it
            path = spec.removeprefix("script:").strip()
            spec = "script:" + os.path.abspath(os.path.expanduser(path)) if path else spec
        elif self.base_url:
            spec = with_endpoint(spec, self.base_url)
        return spec

    def resume_command(self, session_id: str, *extra: str) -> str:
        return shlex.join(["cairn", "resume", session_id, *self.explicit, *extra])


def with_endpoint(spec: str, base_url: str | None) -> str:
    """``NAME via URL``: the model and the endpoint it is served from, recorded together so
    ``cairn resume`` talks to the same server (the banner shows both)."""
    from cairn.graph.models.factory import ENDPOINT_SEP, split_spec

    name, _ = split_spec(spec)
    return f"{name}{ENDPOINT_SEP}{base_url}" if base_url else name


def _absolute_db(db: str) -> str:
    """A relative --db path, made absolute: the resume commands cairn prints work from anywhere."""
    if db == ":memory:" or "://" in db:
        return db
    return os.path.abspath(os.path.expanduser(db))


def check_database_path(location: str, *, create: bool, writes: bool | None = None) -> None:
    path = location
    if os.path.isdir(path):
        raise CliError(f"cannot open the database at {path}: it is a directory", USAGE)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(path):
        if not create:
            return
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as exc:
            raise CliError(
                f"cannot create the state directory {parent}: {exc.strerror or exc}", USAGE
            ) from exc
        if not os.access(parent, os.W_OK | os.X_OK):
            raise CliError(f"cannot create the database at {path}: {parent} is not writable", USAGE)
        return
    import sqlite3

    from cairn.checkpoints.readonly import connect_readonly

    try:
        conn = connect_readonly(path)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise CliError(f"cannot open the database at {path}: {exc}", USAGE) from exc
    if create if writes is None else writes:
        why = read_only_reason(path)
        if why is not None:
            raise CliError(
                f"cannot write to the database at {path}: {why}. This command writes to it "
                "(`cairn sessions` and `cairn show` only read, and still work); "
                "make it writable or pass --db with a writable file",
                USAGE,
            )


def read_only_reason(path: str) -> str | None:
    """Why SQLite could not write the database file ``path``, or ``None`` when it can.

    The checks use the effective ids and capabilities (root without ``CAP_DAC_OVERRIDE`` is
    refused like anyone else).  SQLite needs the directory too: it makes the ``-wal`` and
    ``-shm`` files beside the database, unless they already exist and are writable.
    """
    check = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(path, os.W_OK, **check):
        return "the file is read-only"
    parent = os.path.dirname(os.path.abspath(path))
    if os.access(parent, os.W_OK | os.X_OK, **check):
        return None
    sidecars = [path + "-wal", path + "-shm"]
    if all(os.path.exists(p) and os.access(p, os.W_OK, **check) for p in sidecars):
        return None
    return f"its directory {parent} is read-only"


def preflight_model(spec: str) -> None:
    """Fail before starting when the model cannot be built; never imports langchain-openai.

    Scripted models are parsed (stdlib only); OpenAI-compatible ones need a key or an endpoint.
    ``create_model`` raises ``ModelConfigError`` (with the full explanation) before its heavy
    import when neither is set, so it is called only in that case.
    """
    from cairn.graph.models import ModelConfigError, create_model

    try:
        if spec.startswith("script:"):
            from cairn.graph.models.script import load_script

            path = spec.removeprefix("script:").strip()
            if not path:
                raise ModelConfigError("script: needs a file, e.g. --model script:demo.json")
            try:
                load_script(path)
            except ValueError as exc:
                raise ModelConfigError(str(exc)) from exc
        elif not os.environ.get("OPENAI_API_KEY") and not os.environ.get("OPENAI_BASE_URL"):
            create_model(spec)
    except ModelConfigError as exc:
        raise CliError(str(exc), USAGE) from exc


def check_model(spec: str) -> None:
    """Build the model once before a session exists, so a configuration error (an empty or
    malformed model name...) fails with exit 2 and leaves no session behind."""
    from cairn.graph.models import ModelConfigError, create_model

    if spec.startswith("script:"):
        return  # preflight_model parsed it already
    try:
        create_model(spec)
    except ModelConfigError as exc:
        raise CliError(str(exc), USAGE) from exc
