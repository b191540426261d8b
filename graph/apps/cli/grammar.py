"""Finding the command in ``argv``: ``cairn [PROMPT]``, ``cairn -p``, or a subcommand.

argparse cannot mix an optional free-text PROMPT with subcommands, so ``split_command``
finds the first positional word first: a known subcommand name selects that parser,
anything else is a prompt for the main parser.  Common flags are accepted before or after
the subcommand.
"""

from __future__ import annotations

from cairn.graph.apps.cli.args import VALUE_OPTIONS
from cairn.graph.apps.cli.commands import SUBCOMMANDS


def split_command(argv: list[str]) -> tuple[str | None, list[str]]:
    """``(subcommand or None, argv without it)``: the first positional word decides."""
    skip = False
    for index, token in enumerate(argv):
        if skip:
            skip = False
            continue
        if token == "--":
            return None, argv
        if token.startswith("-"):
            skip = token in VALUE_OPTIONS
            continue
        if token in SUBCOMMANDS:
            return token, argv[:index] + argv[index + 1 :]
        return None, argv
    return None, argv


def typo_of_command(argv: list[str]) -> tuple[str, str] | None:
    """``(word, command)`` when the first positional word misspells a command (``sesions``).

    Only a single word (no spaces) that is close to a command name counts: ``cairn "fix the
    tests"`` and ``cairn fix it`` stay prompts. ``cairn -- sesions`` sends the word as a prompt.
    """
    import difflib

    skip = False
    for token in argv:
        if token == "--":
            return None
        if skip:
            skip = False
            continue
        if token.startswith("-"):
            skip = token in VALUE_OPTIONS
            continue
        if token.split() != [token] or token in SUBCOMMANDS:
            return None
        matches = difflib.get_close_matches(token.lower(), SUBCOMMANDS, n=1, cutoff=0.75)
        return (token, matches[0]) if matches else None
    return None
