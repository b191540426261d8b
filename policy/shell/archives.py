"""Archive and compression tools: what they extract, create or replace."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["compress", "tar", "unzip", "zip_cmd"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


_REMOTE_ARCHIVE = re.compile(r"^[^/]*:")


def tar(name: str, args: list[str]) -> Classified:
    words = list(args)
    if words and not words[0].startswith("-") and re.fullmatch(r"[A-Za-z]+", words[0]):
        words[0] = "-" + words[0]  # old style: tar xzf archive
    exec_opts = (
        "--to-command",
        "--use-compress-program",
        "-I",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "-F",
        "--rsh-command",
        "--rmt-command",
    )
    for word in words:
        if word.split("=", 1)[0] in exec_opts or (word.startswith("-I") and not word.startswith("--")):
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


def unzip(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    names = {o for o, _ in opts}
    if names & {"-l", "-v", "-t", "-Z", "-p", "-c"}:
        return _c("read", LOW, f"{name} only lists or prints an archive", reads=operands[:1])
    target = next((v for o, v in opts if o == "-d" and v), ".")
    return _c("write", MEDIUM, f"{name} extracts into {target}", reads=operands[:1], writes=[target])


def zip_cmd(name: str, args: list[str]) -> Classified:
    if any(a in ("-TT", "--unzip-command") or a.startswith("--unzip-command=") for a in args):
        return _c("exec", HIGH, "zip -TT runs another program")
    _, operands = split_args(args, *value_options(name))
    return _c(
        "write",
        MEDIUM,
        f"zip writes {operands[0] if operands else 'an archive'}",
        reads=operands[1:],
        writes=operands[:1],
    )


def compress(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    names = {o for o, _ in opts}
    to_stdout = bool(names & {"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"})
    decode = name.startswith(("gun", "unx", "bun", "unz", "unlz")) or bool(
        names & {"-d", "--decompress", "--uncompress"}
    )
    if to_stdout or not operands:
        return _c("read", LOW, f"{name} writes to stdout", reads=operands, decoder=decode)
    return _c(
        "write", MEDIUM, f"{name} replaces {' '.join(operands)} in place", reads=operands, writes=operands
    )
