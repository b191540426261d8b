"""Handlers for commands that talk to the network (downloads, uploads, remote shells)."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.download import _c
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.safeflags import value_options

__all__ = ["copy_remote"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def copy_remote(name: str, args: list[str]) -> Classified:
    if name == "rsync" and any(
        a in ("-e", "--rsh") or a.startswith(("--rsh=", "--rsync-path")) for a in args
    ):
        return _c("network", HIGH, "rsync -e runs another program as its transport")
    opts, operands = split_args(args, *value_options(name))
    remote = [o for o in operands if re.match(r"^[^/]*:", o) or o.startswith("rsync://")]
    local = [o for o in operands if o not in remote]
    if not remote:
        sources, dests = operands[:-1], operands[-1:]
        result = _c("write", MEDIUM, f"{name} copies files to {' '.join(dests)}", reads=sources, writes=dests)
        result.network = False
    elif operands and operands[-1] in remote:
        result = _c("network", HIGH, f"{name} sends {' '.join(local)} to {operands[-1]}", reads=local)
    else:
        result = _c(
            "network", HIGH, f"{name} downloads into {' '.join(local)}", writes=local, download_files=local
        )
    if any(
        o in ("--delete", "--delete-before", "--delete-after", "--delete-during", "--remove-source-files")
        for o, _ in opts
    ):
        result.destructive = True
        result.critical.extend((d, f"{name} --delete") for d in local[-1:])
    return result
