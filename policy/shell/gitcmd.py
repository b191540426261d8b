"""git: read-only subcommands are LOW unless an option makes them write or run programs.

Global options that redirect configuration or the repository (``-c``, ``--config-env``,
``--exec-path=``, ``--git-dir``, ``--work-tree``) can run arbitrary programs through
``core.pager``, ``core.sshCommand``, ``core.fsmonitor`` and friends, so they are never LOW.
"""

from __future__ import annotations

import re

from policy.levels import RiskLevel
from policy.shell.options import looks_like_path
from policy.shell.result import Classified
from policy.vocab import words

__all__ = ["git"]

LOW, MEDIUM, HIGH = RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH

READ_SUBS = words(
    """status log show diff blame annotate shortlog describe rev-parse rev-list ls-files ls-tree cat-
    file grep whatchanged range-diff cherry diff-tree diff-files diff-index merge-base name-rev for-
    each-ref show-ref show-branch count-objects check-ignore check-attr var verify-commit verify-tag
    version fsck show-index get-tar-commit-id check-ref-format column interpret-trailers check-
    mailmap"""
)
NETWORK_SUBS = {
    "fetch",
    "pull",
    "push",
    "clone",
    "ls-remote",
    "send-email",
    "request-pull",
    "lfs",
    "svn",
    "p4",
}
WRITE_SUBS = words(
    """add commit checkout switch restore reset merge rebase cherry-pick revert mv rm clean apply am
    init gc prune repack update-index update-ref symbolic-ref replace commit-tree mktree hash-object
    read-tree write-tree checkout-index sparse-checkout mergetool format-patch pack-refs citool gui"""
)
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
_EXEC_FLAGS = {
    "diff": {"--ext-diff"},
    "log": {"--ext-diff"},
    "show": {"--ext-diff"},
    "grep": {"--open-files-in-pager"},
    "ls-remote": {"-u", "--upload-pack"},
    "clone": {"-u", "--upload-pack", "--template"},
    "fetch": {"--upload-pack"},
    "pull": {"--upload-pack"},
    "push": {"--receive-pack", "--exec"},
    "archive": {"--exec"},
    "init": {"--template"},
    "send-email": {"--smtp-server", "--sendmail-cmd"},
}
_EXEC_KEY = re.compile(
    r"pager|editor|command|program|proxy|askpass|helper|hookspath|fsmonitor|textconv|driver|cmd|exec|alias|"
    r"include|sshcommand|filter|protocol|url\.|credential|gpg|sequence|uploadpack|receivepack|external|safe\.|"
    r"template|hooks|shell|browser|tool",
    re.IGNORECASE,
)


def _c(category: str, risk: RiskLevel, reason: str, **kw: object) -> Classified:
    return Classified(category=category, risk=risk, reason=reason, **kw)  # type: ignore[arg-type]


def git(name: str, args: list[str]) -> Classified:
    i = 0
    reads: list[str] = []
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg == "-C":
            if i + 1 < len(args):
                reads.append(args[i + 1])
            i += 2
            continue
        if arg == "-c" or arg.startswith("--config-env"):
            setting = args[i + 1] if arg == "-c" and i + 1 < len(args) else arg
            key = setting.split("=", 1)[0]
            if arg != "-c" or _EXEC_KEY.search(key) or not key:
                shown = f"-c {setting}" if arg == "-c" else arg
                return _c("exec", HIGH, f"git {shown} can make git run other programs (pager, ssh, hooks)")
            i += 2
            continue
        if arg.startswith(
            ("--git-dir", "--work-tree", "--namespace", "--super-prefix", "--exec-path=", "--attr-source")
        ):
            return _c("exec", HIGH, f"git {arg.split('=')[0]} points git at other configuration or programs")
        if arg in ("-p", "--paginate"):
            return _c("general", MEDIUM, "git --paginate runs the configured pager")
        if arg in ("--version", "--help", "-h", "--exec-path", "--html-path", "--man-path", "--info-path"):
            return _c("neutral", LOW, f"git {arg} only prints")
        if arg in (
            "--no-pager",
            "-P",
            "--bare",
            "--no-replace-objects",
            "--literal-pathspecs",
            "--glob-pathspecs",
            "--noglob-pathspecs",
            "--icase-pathspecs",
            "--no-optional-locks",
            "--no-advice",
            "--no-lazy-fetch",
        ):
            i += 1
            continue
        return _c("general", HIGH, f"git {arg} is not a known option")
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
    exec_flags = _EXEC_FLAGS.get(sub, set())
    bad = sorted(f for f in flags if f in exec_flags or (sub == "grep" and f.startswith("-O")))
    if bad:
        return _c("exec", HIGH, f"git {sub} {bad[0]} runs another program")
    if sub in READ_SUBS:
        reads = _paths(rest)
        if sub == "diff" and "--no-index" in flags:
            reads = [a for a in rest if not a.startswith("-")]
        if sub == "blame" and "--contents" in flags:
            k = rest.index("--contents")
            reads += rest[k + 1 : k + 2]
        lists = (
            sub == "ls-files"
            or (sub in ("diff", "log", "show") and flags & {"--name-only", "--name-status"})
            or (sub == "grep" and flags & {"-l", "--files-with-matches", "--name-only"})
        )
        category = "search" if sub == "grep" else "read"
        return _c(category, LOW, f"git {sub} only reads the repository", reads=reads, lists_paths=bool(lists))
    if sub == "archive":
        if "--remote" in flags:
            return _c("network", HIGH, "git archive --remote contacts a remote", network=True)
        return _c("read", LOW, "git archive writes the archive to stdout")
    if sub in ("branch", "tag"):
        listing = {
            "-a",
            "-r",
            "-v",
            "-vv",
            "-l",
            "--list",
            "--show-current",
            "--all",
            "--remotes",
            "--verbose",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
            "--color",
            "--no-color",
            "--column",
            "--no-column",
            "-n",
            "--ignore-case",
            "-i",
        }
        operands = _operands_after_values(
            rest,
            {"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"},
        )
        if flags <= listing and (not operands or flags & {"-l", "--list"}):
            return _c("read", LOW, f"git {sub} only lists")
        destructive = (sub, "-D") in DESTRUCTIVE and "-D" in flags
        return _c(
            "write",
            MEDIUM,
            f"git {sub} changes {sub}es" if sub == "branch" else "git tag changes tags",
            destructive=destructive,
        )
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


def _operands_after_values(rest: list[str], valued: set[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in rest:
        if skip:
            skip = False
            continue
        if a in valued:
            skip = True
            continue
        if not a.startswith("-"):
            out.append(a)
    return out


def _config(rest: list[str], flags: set[str]) -> Classified:
    read_flags = {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "-l",
        "--list",
        "--get-color",
        "--get-colorbool",
    }
    operands = [a for a in rest if not a.startswith("-")]
    if (
        flags & read_flags
        or (operands[:1] in (["get"], ["list"]))
        or (
            len(operands) == 1
            and not flags
            & {
                "--unset",
                "--unset-all",
                "--add",
                "--replace-all",
                "--rename-section",
                "--remove-section",
                "-e",
                "--edit",
            }
        )
    ):
        return _c("read", LOW, "git config only reads settings")
    if flags & {"-e", "--edit"}:
        return _c("general", HIGH, "git config --edit opens an editor on the configuration")
    scope_file = ".git/config"
    if "--global" in flags:
        scope_file = "~/.gitconfig"
    elif "--system" in flags:
        scope_file = "/etc/gitconfig"
    elif "--file" in flags or "-f" in flags:
        k = next(k for k, a in enumerate(rest) if a in ("--file", "-f") or a.startswith("--file="))
        scope_file = (
            rest[k].split("=", 1)[1] if "=" in rest[k] else (rest[k + 1] if k + 1 < len(rest) else "")
        )
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
