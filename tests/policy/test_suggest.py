"""suggest_rule: the "always allow" rule is narrow, readable, valid, and covers the call it was made for."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.policy import Rules, evaluate, suggest_rule
from cairn.policy.rules import parse_rule


def _suggest(command: str, ws: Path) -> str:
    return suggest_rule("bash", {"command": command}, workspace=ws)


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git commit -m 'fix: the thing'", "bash(git commit:*)"),
        ("git push origin main", "bash(git push:*)"),
        ("npm run test", "bash(npm run test:*)"),  # one scope: program + subcommand, any arguments
        ("npm run test -- --watch=false", "bash(npm run test:*)"),
        ("cargo test --release", "bash(cargo test:*)"),
        ("pytest -q tests", "bash(pytest:*)"),
        ("make build", "bash(make build:*)"),
        ("npm install", "bash(npm install:*)"),
        ("touch a.txt", "bash(touch:*)"),
        ("pytest", "bash(pytest:*)"),
        ("npm run", "bash(npm run)"),  # lists the scripts: nothing narrower than itself
        # interpreters, destructive and network commands only ever exactly
        ("python3 script.py", "bash(python3 script.py)"),
        ("rm -rf build", "bash(rm -rf build)"),
        ("curl -s https://example.com", "bash(curl -s https://example.com)"),
        ("sed -i s/a/b/ src/app.py", "bash(sed -i s/a/b/ src/app.py)"),
        ("./run.sh", "bash(./run.sh)"),
        # the part of a compound command that needs approval
        ("git status && npm run lint", "bash(npm run lint:*)"),
        ("sh -c 'make all'", "bash(make all:*)"),  # the code a shell wrapper runs
    ],
)
def test_bash_suggestions(command: str, rule: str, ws: Path) -> None:
    assert _suggest(command, ws) == rule


@pytest.mark.parametrize("command", ["echo hi > notes.txt", "cat /etc/hostname"])
def test_a_command_that_asks_only_for_a_file_gets_no_rule_of_another_tool(command: str, ws: Path) -> None:
    """A bash rule never covers files, and a write_file rule would allow another tool: the call
    is approved once (the person is not offered a write_file rule for `echo >`)."""
    with pytest.raises(ValueError, match="approve it once"):
        _suggest(command, ws)


def test_hard_denied_command_gets_an_exact_rule_that_still_does_not_allow_it(ws: Path) -> None:
    rule = _suggest("rm -rf /", ws)
    assert rule == "bash('rm -rf /')"
    verdict = evaluate("bash", {"command": "rm -rf /"}, workspace=ws, rules=Rules(allow=[rule]))
    assert verdict.decision == "deny"


@pytest.mark.parametrize(
    ("tool", "args", "rule"),
    [
        ("edit_file", {"file_path": "src/app.py"}, "edit_file(src/app.py)"),
        ("Edit", {"file_path": "./src/../src/app.py"}, "edit_file(src/app.py)"),
        ("write_file", {"file_path": "docs/new.md"}, "write_file(docs/new.md)"),
        ("read_file", {"file_path": "/etc/hostname"}, "read_file(/etc/hostname)"),
        ("read_file", {"file_path": "~/notes/todo.txt"}, "read_file(~/notes/todo.txt)"),
        ("web_fetch", {"url": "https://Docs.Python.org./3/library/"}, "web_fetch(domain:docs.python.org)"),
        ("memory", {"action": "add"}, "memory(add)"),
        ("gitignore", {"action": "add", "pattern": "dist/"}, "gitignore(add)"),
        ("task", {"prompt": "x"}, "agent"),
    ],
)
def test_other_tool_suggestions(tool: str, args: dict, rule: str, ws: Path) -> None:
    assert suggest_rule(tool, args, workspace=ws) == rule


def test_url_without_a_host_has_no_suggestion(ws: Path) -> None:
    with pytest.raises(ValueError, match="no host"):
        suggest_rule("web_fetch", {"url": "file:///etc/passwd"}, workspace=ws)


COMMANDS = [
    "git commit -m x",
    "git push origin main",
    "git rebase -i HEAD~3",
    "npm run build -- --prod",
    "npm install left-pad",
    "pnpm test",
    "yarn add react",
    "pip install requests",
    "uv run pytest",
    "docker compose up -d",
    "kubectl apply -f deploy.yaml",
    "make",
    "mkdir -p out",
    "touch notes.txt",
    "cp a.txt b.txt",
    "mv a.txt b.txt",
    "chmod +x run.sh",
    "python3 -m http.server",
    "node server.js",
    "bash build.sh",
    "npx prettier --write src",
    "kill 1234",
    "tar xzf release.tgz",
    "git status && npm run lint",
    "npm run build; npm run test",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_suggestion_is_never_bare_and_covers_only_this_call(command: str, ws: Path) -> None:
    rule = _suggest(command, ws)
    parsed = parse_rule(rule)
    assert parsed.specifier is not None, rule  # never `bash` alone
    if parsed.tool == "bash":
        spec = parsed.specifier
        fixed = shlex.split(spec[:-2] if spec.endswith(":*") else spec)
        # the fixed words are the command's own words, in order, from the start of one of its parts
        parts = [shlex.split(p) for p in command.replace("&&", ";").split(";")]
        assert any(p[: len(fixed)] == fixed for p in parts), (rule, command)
        assert "*" not in spec[:-2], rule
        if not spec.endswith(":*"):
            assert fixed in parts, (rule, command)


@pytest.mark.parametrize("command", COMMANDS[:-2])
def test_granting_the_suggestion_allows_the_same_call(command: str, ws: Path) -> None:
    args = {"command": command}
    rule = _suggest(command, ws)
    verdict = evaluate("bash", args, workspace=ws, rules=Rules(allow=[rule]), resolve_dns=False)
    assert verdict.decision == "allow", (rule, verdict)


_WORD = st.sampled_from(["git", "npm", "run", "test", "build", "-q", "--fix", "src", "app.py", "x", "commit"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(_WORD, min_size=1, max_size=5))
def test_generated_commands_never_get_a_bare_rule(words: list[str], ws: Path) -> None:
    command = " ".join(words)
    rule = _suggest(command, ws)
    parsed = parse_rule(rule)
    assert parsed.specifier is not None
    verdict = evaluate("bash", {"command": command}, workspace=ws, rules=Rules(allow=[rule]))
    assert verdict.decision == "allow", (rule, verdict)


def test_always_rule_is_the_suggestion_or_none_when_none_fits(tmp_path):
    """The one helper the CLI prompt and the approval node use (issue 29)."""
    from cairn.policy import always_rule

    assert always_rule("bash", {"command": "git commit -m x"}, workspace=tmp_path) == "bash(git commit:*)"
    assert always_rule("bash", {"command": "echo hi > notes.txt"}, workspace=tmp_path) is None
    assert always_rule("web_fetch", {"url": "no host"}, workspace=tmp_path) is None
