"""``COMMANDS`` is the one table of cairn's commands: parser, handler and storage use."""

from __future__ import annotations

import pytest

from cairn.graph.apps.cli.commands import COMMANDS, READS, SUBCOMMANDS
from cairn.graph.apps.cli.grammar import split_command
from cairn.graph.apps.cli.parsers import MAIN_EPILOG


@pytest.mark.parametrize("name", list(COMMANDS), ids=str)
def test_every_command_has_a_handler_in_its_own_module(name):
    entry = COMMANDS[name]
    module = entry.handler.split(":")[0]
    assert module == (name or "run")  # one module per command, named after it
    assert callable(entry.load())
    if entry.parser is not None:
        parser = entry.parser()
        assert parser.prog == " ".join(["cairn", *([name] if name else [])])


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_subcommand_is_found_in_argv_and_listed_in_the_help(name):
    assert split_command(["--plain", name, "x"]) == (name, ["--plain", "x"])
    assert f"\n  cairn {name} " in MAIN_EPILOG


def test_only_the_readers_leave_a_missing_database_uncreated():
    readers = {name for name, entry in COMMANDS.items() if entry.storage and not entry.storage.creates}
    assert readers == {"sessions", "show", "rewind", "agents"}
    assert COMMANDS["sessions"].storage is READS


def test_writes_depend_on_the_invocation():
    rewind = COMMANDS["rewind"]
    agents = COMMANDS["agents"]
    assert rewind.storage and agents.storage
    assert rewind.storage.writes(rewind.parser().parse_args(["abc", "--dry-run"])) is False
    assert rewind.storage.writes(rewind.parser().parse_args(["abc"])) is True
    assert agents.storage.writes(agents.parser().parse_args(["list"])) is False
    assert agents.storage.writes(agents.parser().parse_args(["merge", "a1"])) is True
