"""git: read-only subcommands are LOW unless an option makes them write or run programs;
``config`` and the subcommands with their own sub-actions (stash, worktree, submodule...) by theirs.

Global options that redirect configuration or the repository (``-c``, ``--config-env``,
``--exec-path=``, ``--git-dir``, ``--work-tree``) can run arbitrary programs through
``core.pager``, ``core.sshCommand``, ``core.fsmonitor`` and friends, so they are never LOW.
"""

from __future__ import annotations

import re

from cairn.policy.levels import RiskLevel
from cairn.policy.shell.options import looks_like_path, split_args
from cairn.policy.shell.programs import known
from cairn.policy.shell.programs.git import SUBCOMMANDS
from cairn.policy.shell.result import Classified
from cairn.policy.shell.result import make as _c
from cairn.policy.shell.safeflags import value_options
from cairn.policy.vocab import words

__all__ = ["git"]

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
    scopes = {"--global": "~/.gitconfig", "--system": "/etc/gitconfig"}  # before -f FILE
    scope_file = next((scopes[f] for f in scopes if f in flags), ".git/config" if source is None else source)
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
    }.get(sub, set())  # maintenance, hook: none
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


#: What each subcommand does, from the subcommand data (``programs/git.py``).
READ_SUBS = frozenset(s.name for s in SUBCOMMANDS if s.kind == "read")
NETWORK_SUBS = frozenset(s.name for s in SUBCOMMANDS if s.kind == "network")
WRITE_SUBS = frozenset(s.name for s in SUBCOMMANDS if s.kind == "write")
_EXEC_FLAGS = {s.name: s.runs for s in SUBCOMMANDS if s.runs}


def git(name: str, args: list[str]) -> Classified:
    found = known(name)  # programs/coded.py: git's own options before the subcommand
    takes_value = {"-" + c for c in value_options(name)[0]}
    allowed = takes_value | {"-" + c for c in found.flags} | {"--" + n for n in found.long}
    i = 0
    reads: list[str] = []
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        value = args[i + 1] if arg in takes_value and i + 1 < len(args) else None
        if arg == "-c" or arg.startswith("--config-env"):
            key = (arg if value is None else value).split("=", 1)[0]
            if arg != "-c" or _EXEC_KEY.search(key) or not key:
                shown = f"-c {value}" if arg == "-c" else arg
                return _c("exec", HIGH, f"git {shown} can make git run other programs (pager, ssh, hooks)")
        elif arg.startswith(
            ("--git-dir", "--work-tree", "--namespace", "--super-prefix", "--exec-path=", "--attr-source")
        ):
            return _c("exec", HIGH, f"git {arg.split('=')[0]} points git at other configuration or programs")
        elif arg in ("-p", "--paginate"):
            return _c("general", MEDIUM, "git --paginate runs the configured pager")
        elif arg in ("--version", "--help", "-h", "--exec-path", "--html-path", "--man-path", "--info-path"):
            return _c("neutral", LOW, f"git {arg} only prints")
        elif arg not in allowed:
            return _c("general", HIGH, f"git {arg} is not a known option")
        if arg == "-C" and value is not None:
            reads.append(value)
        i += 2 if arg in takes_value else 1
    if i >= len(args):
        return _c("neutral", LOW, "git with no subcommand prints help", reads=reads)
    sub, rest = args[i], args[i + 1 :]
    result = _subcommand(sub, rest)
    result.reads = reads + result.reads
    return result


def _paths(rest: list[str]) -> list[str]:
    return [a for a in rest if not a.startswith("-") and looks_like_path(a)]


def _subcommand(sub: str, rest: list[str]) -> Classified:
    flags = {a.split("=", 1)[0] for a in rest if a.startswith("-")}
    for bad in ("--output", "-o"):
        if bad in flags and sub in READ_SUBS | {"archive"}:
            target = next((a.split("=", 1)[1] if "=" in a else "" for a in rest if a.startswith(bad)), "")
            if bad == "-o" and sub not in ("archive",):
                continue
            if not target:
                k = rest.index(bad)
                target = rest[k + 1] if k + 1 < len(rest) else ""
            return _c("write", MEDIUM, f"git {sub} {bad} writes {target}", writes=[target])
    exec_flags = _EXEC_FLAGS.get(sub, frozenset())
    bad = sorted(f for f in flags if f in exec_flags or (sub == "grep" and f.startswith("-O")))
    if bad:
        return _c("exec", HIGH, f"git {sub} {bad[0]} runs another program")
    if sub in READ_SUBS:
        return _read_sub(sub, rest, flags)
    if sub == "archive":
        if "--remote" in flags:
            return _c("network", HIGH, "git archive --remote contacts a remote", network=True)
        return _c("read", LOW, "git archive writes the archive to stdout")
    if sub in ("branch", "tag"):
        return _branch_or_tag(sub, rest, flags)
    if sub == "remote":
        if not rest or rest[0] in ("-v", "--verbose", "get-url"):
            return _c("read", LOW, "git remote only lists")
        if rest[0] in ("show", "update", "prune"):
            return _c("network", MEDIUM, f"git remote {rest[0]} contacts the remote", network=True)
        return _c("write", MEDIUM, f"git remote {rest[0]} changes the repository's remotes")
    if sub == "config":
        return _config(rest, flags)
    if sub in ("stash", "worktree", "notes", "reflog", "submodule", "bisect", "maintenance", "hook"):
        return _multi(sub, rest, flags)
    if sub in NETWORK_SUBS:
        destructive = any((sub, f) in DESTRUCTIVE for f in flags)
        return _c(
            "network",
            HIGH,
            f"git {sub} contacts a remote" + (" and overwrites remote history" if destructive else ""),
            network=True,
            destructive=destructive,
            writes=[a for a in rest if not a.startswith("-")][1:2] if sub == "clone" else [],
        )
    if sub in WRITE_SUBS:
        destructive = (
            any((sub, f) in DESTRUCTIVE for f in flags)
            or sub in ("clean", "restore")
            or (sub == "checkout" and "--" in rest)
        )
        if sub == "rebase" and flags & {"-x", "--exec"}:
            return _c("exec", HIGH, "git rebase --exec runs a command for each commit")
        if sub == "rebase" and flags & {"-i", "--interactive"}:
            return _c("write", MEDIUM, "git rebase -i rewrites history with an editor")
        return _c(
            "write",
            MEDIUM,
            f"git {sub} changes the repository or working tree",
            writes=_paths(rest),
            destructive=destructive,
        )
    if sub in ("help",):
        return _c("general", MEDIUM, "git help opens a pager or browser")
    if sub == "filter-branch":
        return _c("exec", HIGH, "git filter-branch rewrites history by running commands")
    return _c("general", HIGH, f"git {sub} is not a known subcommand (it may be an alias)")


def _read_sub(sub: str, rest: list[str], flags: set[str]) -> Classified:
    """A read-only subcommand: the paths and repository objects it shows."""
    reads = _paths(rest) + _repository_paths(rest)
    if sub == "diff" and "--no-index" in flags:
        reads = [a for a in rest if not a.startswith("-")]
    if sub == "blame" and "--contents" in flags:  # --contents FILE or --contents=FILE
        reads += [a.split("=", 1)[1] for a in rest if a.startswith("--contents=")]
        reads += [rest[k + 1] for k, a in enumerate(rest[:-1]) if a == "--contents"]
    lists = (
        sub == "ls-files"
        or (sub in ("diff", "log", "show") and flags & {"--name-only", "--name-status"})
        or (sub == "grep" and flags & {"-l", "--files-with-matches", "--name-only"})
    )
    return _c(
        "search" if sub == "grep" else "read",
        LOW,
        f"git {sub} only reads the repository",
        reads=reads,
        lists_paths=bool(lists),
    )


#: Options with which git branch/tag only list.
_LISTING_FLAGS = words(
    """-a -r -v -vv -l --list --show-current --all --remotes --verbose --contains --no-contains
    --merged --no-merged --points-at --sort --format --color --no-color --column --no-column -n
    --ignore-case -i"""
)


def _branch_or_tag(sub: str, rest: list[str], flags: set[str]) -> Classified:
    """git branch/tag: listing is read-only; anything else changes refs."""
    valued = {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}
    operands = split_args(rest, "", valued)[1]
    if flags <= _LISTING_FLAGS and (not operands or flags & {"-l", "--list"}):
        return _c("read", LOW, f"git {sub} only lists")
    says = f"git {sub} changes {sub}es" if sub == "branch" else "git tag changes tags"
    return _c("write", MEDIUM, says, destructive="-D" in flags and (sub, "-D") in DESTRUCTIVE)


def _repository_paths(rest: list[str]) -> list[str]:
    """Paths a read-only subcommand shows from the repository: ``REV:PATH`` objects and the
    pathspecs after ``--`` (``git show HEAD:.env`` reads .env as committed)."""
    out: list[str] = []
    for k, arg in enumerate(rest):
        if arg == "--":
            out.extend(a for a in rest[k + 1 :] if a and not a.startswith(":"))
            break
        if not arg.startswith("-") and ":" in arg and "://" not in arg:
            path = arg.split(":", 1)[1]
            if path and not path.startswith(("/", "~")):
                out.append(path.removeprefix("./"))
    return out
