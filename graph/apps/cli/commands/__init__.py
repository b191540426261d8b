"""The ``cairn`` commands: ``COMMANDS`` is the one table of them.

Each entry names the command's parser (from ``parsers``; ``None``: the command reads its own
arguments), its handler (a function of the module named after the command in this package,
imported only when it runs, so ``cairn --help`` loads nothing else), and how it uses the session
database (``storage``, checked before it runs; ``None``: it opens none).  Helpers of a single
command share its name (``show_rewinds``, ``sandbox_probes``, ``policy_keys``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from cairn.graph.apps.cli import parsers


def _always(ns: argparse.Namespace) -> bool:
    return True


def _never(ns: argparse.Namespace) -> bool:
    return False


@dataclass(frozen=True)
class Storage:
    """How a command uses the session database (``Options.check_storage``)."""

    #: A missing database is created; ``False``: the command only reads sessions that exist.
    creates: bool = True
    #: Whether this invocation writes (a read-only database is then refused).
    writes: Callable[[argparse.Namespace], bool] = _always


@dataclass(frozen=True)
class Command:
    #: Builds the command's parser; ``None``: the handler takes the raw ``argv`` and parses it.
    parser: Callable[[], argparse.ArgumentParser] | None
    #: ``"module:function"`` in this package: ``function(ns, opts)``, or ``function(argv)``
    #: when ``parser`` is ``None``.
    handler: str
    storage: Storage | None = Storage()

    def load(self) -> Callable[..., int]:
        module, function = self.handler.split(":")
        handler: Callable[..., int] = getattr(importlib.import_module(f"{__name__}.{module}"), function)
        return handler


READS = Storage(creates=False, writes=_never)

#: Every command, in ``cairn --help`` order; ``None`` is ``cairn [PROMPT]`` / ``cairn -p`` itself.
COMMANDS: dict[str | None, Command] = {
    None: Command(parsers.main_parser, "run:run_main"),
    "resume": Command(parsers.resume_parser, "resume:run_resume"),
    "decide": Command(parsers.decide_parser, "decide:run_decide"),
    "sessions": Command(parsers.sessions_parser, "sessions:run_sessions", READS),
    "show": Command(parsers.show_parser, "show:run_show", READS),
    "export": Command(parsers.export_parser, "export:run_export", READS),
    "rewind": Command(
        parsers.rewind_parser,
        "rewind:run_rewind",
        Storage(creates=False, writes=lambda ns: not getattr(ns, "dry_run", False)),
    ),
    "policy": Command(None, "policy:run_policy", None),
    "models": Command(None, "models:run_models", None),
    "sandbox": Command(None, "sandbox:run_sandbox", None),
    "demo": Command(parsers.demo_parser, "demo:run_demo", None),
    "mcp": Command(parsers.mcp_parser, "mcp:run_mcp"),
    "hooks": Command(parsers.hooks_parser, "hooks:run_hooks"),
    "agents": Command(
        parsers.agents_parser,
        "agents:run_agents",
        Storage(creates=False, writes=lambda ns: getattr(ns, "action", "list") != "list"),
    ),
    "acp": Command(None, "acp:run_acp", None),
}
#: The subcommand names (what the first positional word is matched against).
SUBCOMMANDS: tuple[str, ...] = tuple(name for name in COMMANDS if name is not None)


def dispatch(command: str | None, argv: list[str]) -> int:
    """Parse ``argv`` for ``command``, check its storage, run its handler: the exit code."""
    entry = COMMANDS[command]
    if entry.parser is None:
        return entry.load()(argv)
    ns = entry.parser().parse_args(argv)
    from cairn.graph.apps.cli.options import Options

    opts = Options.from_args(ns)
    if entry.storage is not None and not getattr(ns, "version", False):
        opts.check_storage(create=entry.storage.creates, writes=entry.storage.writes(ns))
    return entry.load()(ns, opts)


__all__ = ["COMMANDS", "SUBCOMMANDS", "Command", "Storage", "dispatch"]
