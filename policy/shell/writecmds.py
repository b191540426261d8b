"""Handlers for commands that create, change or delete files."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import split_args
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options

__all__ = ["chmod_chown", "copy_move", "rm"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH


def _recursive(opts: list[tuple[str, str | None]]) -> bool:
    return any(o in ("-r", "-R", "--recursive") for o, _ in opts)


def rm(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    names = {o for o, _ in opts}
    result = _c(
        "write", MEDIUM, f"rm deletes {' '.join(operands) or 'nothing'}", writes=operands, destructive=True
    )
    if "--no-preserve-root" in names:
        result.hard_deny.append("rm --no-preserve-root can delete the whole filesystem")
    if _recursive(opts) or name == "rmdir":
        result.critical.extend((o, "rm -r" if name == "rm" else name) for o in operands)
    else:
        result.critical.extend((o, "rm") for o in operands if o in ("/", "~") or o.rstrip("/") == "")
    if name == "rmdir":
        result.destructive = False
        result.auto_edit = True
        result.reason = f"rmdir removes empty directories {' '.join(operands)}"
    return result


def copy_move(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    target = next((v for o, v in opts if o in ("-t", "--target-directory") and v), None)
    if target is not None:
        sources, dests = operands, [target]
    elif len(operands) >= 2:
        sources, dests = operands[:-1], operands[-1:]
    else:
        sources, dests = operands, []
    writes = list(dests)
    result = _c(
        "write",
        MEDIUM,
        f"{name} writes {' '.join(dests) or '?'}",
        reads=list(sources),
        writes=writes,
        auto_edit=name in ("cp", "mv"),
    )
    if name == "mv":
        result.writes.extend(sources)
        result.critical.extend((s, "mv") for s in sources)
        result.reason = f"mv moves {' '.join(sources)} to {' '.join(dests)}"
    names = {o for o, _ in opts}
    hard = (name == "ln" and not names & {"-s", "--symbolic"}) or (name == "cp" and names & {"-l", "--link"})
    if hard:
        # a hard link is the source file under a second name: writing the link writes the source
        result.writes.extend(sources)
        result.auto_edit = False
        result.reason = (
            f"{name} makes a hard link to {' '.join(sources)} (the same file, writable by the new name)"
        )
        return result
    if name == "ln":
        result.reads = []
        result.auto_edit = False
        result.reason = f"ln creates the link {' '.join(dests or sources)}"
        if not dests:
            result.writes = [s.rstrip("/").rsplit("/", 1)[-1] for s in sources]
    if name == "install":
        result.reason = f"install copies files to {' '.join(dests)}"
    return result


def chmod_chown(name: str, args: list[str]) -> Classified:
    opts, operands = split_args(args, *value_options(name))
    reference = any(o == "--reference" for o, _ in opts)
    # chmod -x is a mode, not an option: keep mode-looking "options" as the mode operand
    mode_opts = [o for o, _ in opts if name == "chmod" and re.fullmatch(r"-[rwxXst]+", o)]
    targets = operands if mode_opts or reference else operands[1:]
    result = _c(
        "write", MEDIUM, f"{name} changes permissions/ownership of {' '.join(targets)}", writes=targets
    )
    if _recursive(opts):
        result.critical.extend((t, f"{name} -R") for t in targets)
    else:
        result.critical.extend((t, name) for t in targets)
    mode = operands[0] if operands and not reference else ""
    if name == "chmod" and re.search(r"(^|[ugoa]*[=+])[0-7]*7{2}|a\+rwx|o\+w", mode) and _recursive(opts):
        result.risk = HIGH
    return result
