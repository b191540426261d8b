"""git config and the git subcommands with their own sub-actions (stash, worktree, submodule...)."""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.vocab import words

__all__ = []

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

DESTRUCTIVE = {
    ("reset", "--hard"),
    ("clean", "-f"),
    ("clean", "-d"),
    ("clean", "-x"),
    ("checkout", "-f"),
    ("checkout", "--force"),
    ("push", "--force"),
    ("push", "-f"),
    ("push", "--force-with-lease"),
    ("branch", "-D"),
    ("stash", "drop"),
    ("stash", "clear"),
}

_EXEC_KEY = re.compile(
    r"pager|editor|command|program|proxy|askpass|helper|hookspath|fsmonitor|textconv|driver|cmd|exec|alias|"
    r"include|sshcommand|filter|protocol|url\.|credential|gpg|sequence|uploadpack|receivepack|external|safe\.|"
    r"template|hooks|shell|browser|tool",
    re.IGNORECASE,
)


#: git config options that change a setting (without one, a single name only reads it).
_CHANGES = words("--unset --unset-all --add --replace-all --rename-section --remove-section -e --edit")


def _config(rest: list[str], flags: set[str]) -> Classified:
    read_flags = words("--get --get-all --get-regexp --get-urlmatch -l --list --get-color --get-colorbool")
    operands = [a for a in rest if not a.startswith("-")]
    source = _config_file(rest)
    if source is not None or flags & {"--blob", "--includes"}:
        operands = [a for a in operands if a != source]
    if (
        flags & read_flags
        or (operands[:1] in (["get"], ["list"]))
        or (len(operands) == 1 and not flags & _CHANGES)
    ):
        if source is not None:
            return _c("read", LOW, f"git config reads {source}", reads=[source])
        if flags & {"--blob"}:
            return _c("read", MEDIUM, "git config --blob reads settings from a blob")
        return _c("read", LOW, "git config only reads settings")
    if flags & {"-e", "--edit"}:
        return _c("general", HIGH, "git config --edit opens an editor on the configuration")
    scope_file = ".git/config"
    if "--global" in flags:
        scope_file = "~/.gitconfig"
    elif "--system" in flags:
        scope_file = "/etc/gitconfig"
    elif source is not None:
        scope_file = source
    key = operands[1] if operands[:1] == ["set"] and len(operands) > 1 else (operands[0] if operands else "")
    if scope_file != ".git/config" or _EXEC_KEY.search(key):
        return _c(
            "write",
            HIGH,
            f"git config sets {key or 'a setting'} in {scope_file} (settings there can run programs)",
            writes=[scope_file],
        )
    return _c("write", MEDIUM, f"git config sets {key} for this repository")


def _multi(sub: str, rest: list[str], flags: set[str]) -> Classified:
    action = next((a for a in rest if not a.startswith("-")), "")
    if sub == "reflog" and action not in ("expire", "delete", "drop", "write"):
        return _c("read", LOW, "git reflog only reads")
    reads = {
        "stash": {"list", "show"},
        "worktree": {"list"},
        "notes": {"list", "show"},
        "reflog": {"", "show", "exists"},
        "submodule": {"status", "summary"},
        "bisect": {"log", "view", "visualize"},
        "maintenance": set(),
        "hook": set(),
    }[sub]
    if action in reads:
        return _c("read", LOW, f"git {sub} {action} only reads".replace("  ", " "))
    if sub == "submodule" and action == "foreach":
        k = rest.index("foreach")
        code = " ".join(a for a in rest[k + 1 :] if a not in ("--recursive", "-q", "--quiet"))
        return _c(
            "wrapper", MEDIUM, "git submodule foreach runs a command in every submodule", nested_code=[code]
        )
    if sub == "bisect" and action == "run":
        k = rest.index("run")
        return _c("wrapper", MEDIUM, "git bisect run runs a command for each step", inner=rest[k + 1 :])
    if sub in ("maintenance", "hook"):
        return _c("general", HIGH, f"git {sub} {action} schedules or runs background jobs and hooks")
    if sub == "submodule" and action in ("update", "add", "init", "sync", "deinit"):
        return _c("network", HIGH, f"git submodule {action} fetches or changes submodules", network=True)
    destructive = (sub, action) in DESTRUCTIVE or (sub == "reflog" and action in ("expire", "delete"))
    return _c(
        "write",
        MEDIUM,
        f"git {sub} {action or 'push'} changes the repository".replace("  ", " "),
        destructive=destructive,
    )


def _config_file(rest: list[str]) -> str | None:
    """The file ``git config -f FILE`` / ``--file=FILE`` reads or writes."""
    for k, arg in enumerate(rest):
        if arg.startswith("--file="):
            return arg.split("=", 1)[1]
        if arg in ("-f", "--file"):
            return rest[k + 1] if k + 1 < len(rest) else ""
    return None
