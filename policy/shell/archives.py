"""Archive and compression tools: what they extract, create or replace."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options
from cairn.policy.vocab import words

__all__ = ["tar"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


_REMOTE_ARCHIVE = re.compile(r"^[^/]*:")


#: tar options whose value is a program it runs.
_RUNS_PROGRAM = words(
    """--to-command --use-compress-program -I --checkpoint-action --info-script --new-volume-script -F
    --rsh-command --rmt-command"""
)


def tar(name: str, args: list[str]) -> Classified:
    words = list(args)
    if words and not words[0].startswith("-") and re.fullmatch(r"[A-Za-z]+", words[0]):
        words[0] = "-" + words[0]  # old style: tar xzf archive
    for word in words:
        if word.split("=", 1)[0] in _RUNS_PROGRAM or (word.startswith("-I") and not word.startswith("--")):
            return _c("exec", HIGH, f"tar {word.split('=', 1)[0]} runs another program")
    opts, operands = split_args(words, *value_options("tar"))
    letters = {o for o, _ in opts}
    archive = next((v for o, v in opts if o in ("-f", "--file") and v), None)
    if archive and _REMOTE_ARCHIVE.match(archive) and "--force-local" not in letters:
        return _c(
            "network",
            HIGH,
            f"tar -f {archive} names a remote archive (tar runs rsh/ssh for host:file)",
            network=True,
        )
    directory = next((v for o, v in opts if o in ("-C", "--directory") and v), ".")
    if letters & {"-t", "--list"}:
        return _c("read", LOW, "tar -t only lists an archive", reads=[archive] if archive else [])
    if letters & {"-x", "--extract", "--get"}:
        return _c(
            "write",
            MEDIUM,
            f"tar extracts into {directory}",
            reads=[archive] if archive else [],
            writes=[directory],
        )
    if letters & {"-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate"}:
        return _c(
            "write",
            MEDIUM,
            f"tar writes the archive {archive or '-'}",
            reads=operands,
            writes=[archive] if archive and archive != "-" else [],
        )
    return _c("general", MEDIUM, "tar with an unrecognised mode")
