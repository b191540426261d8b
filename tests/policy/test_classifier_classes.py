"""The classes of issue 11, tested on their building blocks (option lists, repository detection,
path folding, hard links) and through ``evaluate``.  Every command here is data for the policy;
nothing is run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.policy import Rules, evaluate
from cairn.policy.paths import fold, hard_link_reason, resolve_path
from cairn.policy.shell.gitrepo import shipped_repo
from cairn.policy.shell.safeflags import unsafe_git_option, unsafe_option
from cairn.tools.workspace import Workspace


def _decision(command: str, ws: Path, mode: str = "default", rules: Rules | None = None) -> str:
    return str(evaluate("bash", {"command": command}, workspace=ws, mode=mode, rules=rules).decision)


# --- known-safe options -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("ls", ["-la", "--color=auto", "src"]),
        ("grep", ["-rniE", "a|b", "--include", "*.py", "src"]),
        ("head", ["-20", "f"]),
        ("head", ["-n", "-5", "f"]),
        ("tail", ["+3", "f"]),
        ("date", ["+%F"]),
        ("sort", ["-t:", "-k2,2n", "f"]),
        ("rg", ["-n", "--hidden", "-g", "!.git", "foo"]),
    ],
)
def test_listed_options_pass(name: str, args: list[str]) -> None:
    assert unsafe_option(name, args) is None


@pytest.mark.parametrize(
    ("name", "args", "bad"),
    [
        ("sort", ["--compress-prog=sh", "f"], "--compress-prog"),  # GNU abbreviation of a runner
        ("wc", ["--files0-from=list"], "--files0-from"),
        ("tar", ["-tvf", "a.tar", "--index-file=x"], "--index-file"),
        ("head", ["--new-flag"], "--new-flag"),
        ("cat", ["-Z"], "-Z"),
        ("nm", ["-C", "a.out"], "-C"),  # no list at all: any option asks
    ],
)
def test_unlisted_options_are_named(name: str, args: list[str], bad: str) -> None:
    assert unsafe_option(name, args) == bad


def test_an_option_is_never_swallowed_as_the_previous_options_value() -> None:
    assert unsafe_option("rg", ["-e", "--pre=./x", "."]) == "--pre"
    assert unsafe_git_option(["log", "--pretty", "--output=/tmp/x"]) == "--output"
    assert unsafe_git_option(["log", "--author", "me", "--oneline"]) is None


@pytest.mark.parametrize(
    "args",
    [
        ["log", "--oneline", "-5"],
        ["log", "-p", "-3", "--", "src/app.py"],
        ["diff", "--stat", "HEAD~1"],
        ["cat-file", "-p", "HEAD"],
        ["for-each-ref", "--format=%(refname)", "refs/heads"],
        ["reflog", "-n", "10"],
        ["status", "-sb"],
        ["-C", "sub", "status", "--porcelain"],
    ],
)
def test_everyday_git_options_pass(args: list[str]) -> None:
    assert unsafe_git_option(args) is None


@pytest.mark.parametrize(
    ("args", "bad"),
    [
        (["log", "--textconv"], "--textconv"),
        (["diff", "-Oorder.txt"], "-O"),
        (["cat-file", "--filters", "HEAD:x"], "--filters"),
        (["blame", "--ignore-revs-file=x", "f"], "--ignore-revs-file"),
        (["archive", "--add-file=x", "HEAD"], "--add-file"),
        (["fsck", "--lost-found"], "--lost-found"),
    ],
)
def test_git_options_that_run_write_or_read_anywhere_are_not_listed(args: list[str], bad: str) -> None:
    assert unsafe_git_option(args) == bad


# --- git repositories the workspace ships -------------------------------------------------


def test_the_workspace_own_repository_is_not_shipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    assert shipped_repo(tmp_path / "src", tmp_path) is None


def test_a_worktree_gitfile_pointing_outside_is_the_persons_repository(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".git").write_text(f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'ws'}\n")
    assert shipped_repo(ws, ws) is None


def test_nested_gitfile_and_bare_repositories_are_shipped(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "vendor" / "lib" / ".git").mkdir(parents=True)
    assert "repository of its own" in (shipped_repo(tmp_path / "vendor" / "lib", tmp_path) or "")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../payload\n")
    assert shipped_repo(tmp_path / "sub", tmp_path) is not None
    bare = tmp_path / "evil.git"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    assert "bare" in (shipped_repo(bare, tmp_path) or "")


def test_root_gitfile_pointing_inside_the_workspace_is_shipped(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: payload\n")
    assert shipped_repo(tmp_path, tmp_path) is not None


def test_git_in_a_shipped_repository_asks_even_with_a_rule(ws: Path) -> None:
    (ws / "vendor" / "lib" / ".git").mkdir(parents=True)
    rules = Rules(allow=["bash(git status:*)"])
    assert _decision("git -C vendor/lib status", ws, rules=rules) == "ask"
    assert _decision("git status", ws) == "allow"
    assert _decision('cd "$DIR" && git status', ws) == "ask"


# --- paths: folding, credentials, hard links ----------------------------------------------


def test_fold_is_case_and_unicode_insensitive() -> None:
    assert fold(".Git/HOOKS") == fold(".git/hooks")
    assert fold("\uff47it") == "git"  # fullwidth g


@pytest.mark.parametrize("path", [".Git/hooks/pre-commit", ".CAIRN/settings.toml", ".GIT/config"])
def test_folded_protected_paths_are_refused_in_bypass_mode(ws: Path, path: str) -> None:
    verdict = evaluate("write_file", {"file_path": path, "content": "x"}, workspace=ws, mode="bypass")
    assert verdict.decision == "deny", verdict.reason


def test_writing_a_file_with_other_hard_links_asks_in_every_mode(ws: Path) -> None:
    target = ws / "notes.txt"
    target.write_text("x")
    os.link(target, ws / "other-name.txt")
    info = resolve_path("notes.txt", Workspace(ws))
    assert hard_link_reason(info) is not None
    for mode in ("default", "accept-edits", "bypass"):
        assert _decision("echo y > notes.txt", ws, mode=mode) == "ask", mode
        verdict = evaluate("edit_file", {"file_path": "notes.txt"}, workspace=ws, mode=mode)
        assert verdict.decision == "ask", (mode, verdict.reason)


@pytest.mark.parametrize(
    "command", ["cat .env", "cat deploy/id_rsa", "head -3 .npmrc", "cat ~/.docker/config.json"]
)
def test_credential_reads_ask_in_bypass_mode_and_a_rule_lifts_them(ws: Path, command: str) -> None:
    assert _decision(command, ws, mode="bypass") == "ask"
    assert _decision(command, ws, rules=Rules(allow=["read_file(**)", "read_file(~/**)"])) == "allow"


def test_env_templates_are_not_credentials(ws: Path) -> None:
    assert _decision("cat .env.example", ws) == "allow"


# --- string-evaluating built-ins and the environment --------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "read -r n < f.txt; [[ -v $n ]] && echo set",
        "x=1; echo ${x@P}",
        "mapfile -t -C cb -c 1 lines < f.txt",
        "compgen -W '$(id)' x",
    ],
)
def test_string_evaluating_builtins_never_run_without_a_person(ws: Path, command: str) -> None:
    assert _decision(command, ws) == "ask"


@pytest.mark.parametrize("command", ["env", "printenv", "set", "export -p", "declare -p", "typeset -x"])
def test_listing_the_environment_asks(ws: Path, command: str) -> None:
    assert _decision(command, ws) == "ask"


@pytest.mark.parametrize(
    "command",
    [
        "printenv HOME",
        "declare -p PATH",
        "export FOO=1",
        "set -euo pipefail",
        "compgen -c",
        "mapfile -t a < f.txt",
    ],
)
def test_the_harmless_forms_stay_allowed(ws: Path, command: str) -> None:
    assert _decision(command, ws) == "allow"


# --- fail closed early -----------------------------------------------------------------------


def test_long_chains_fail_closed_before_parsing_but_deny_rules_still_apply(ws: Path) -> None:
    chain = " && ".join(["git status"] * 200)
    assert _decision(chain, ws) == "ask"
    assert (
        _decision(chain + " && curl -s https://x.example", ws, rules=Rules(deny=["bash(curl:*)"])) == "deny"
    )
    assert _decision(chain + " && rm -rf /", ws, mode="bypass") == "deny"
    huge = "echo " + "a" * 12_000
    assert _decision(huge, ws) == "ask"
