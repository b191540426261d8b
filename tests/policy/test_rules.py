"""Rule strings: parsing, validation, precedence (deny > ask > allow) and compound commands."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from cairn.policy import PolicyConfigError, Rules, evaluate
from cairn.policy.rules import parse_rule


def _bash(command: str, ws: Path, rules: Rules | None = None, mode: str = "default"):
    return evaluate("bash", {"command": command}, workspace=ws, rules=rules, mode=mode, resolve_dns=False)


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tool", "spec"),
    [
        ("bash", "bash", None),
        ("bash(git status)", "bash", "git status"),
        ("bash(  npm   run test:* )", "bash", "npm run test:*"),
        ("bash(*)", "bash", None),  # the same as the bare tool
        ("Bash(ls -la)", "bash", "ls -la"),
        ("Read(~/.ssh/**)", "read_file", "~/.ssh/**"),
        ("Edit(src/**)", "edit_file", "src/**"),
        ("WebFetch(domain:Docs.Python.org)", "web_fetch", "domain:docs.python.org"),
        ("web_fetch(domain:*.python.org)", "web_fetch", "domain:*.python.org"),
        ("memory(view)", "memory", "view"),
        ("gitignore(add)", "gitignore", "add"),
        ("mcp__github__*", "mcp__github__*", None),
        ("task", "agent", None),
        ("bash(echo 'a;b')", "bash", "echo 'a;b'"),  # operators inside quotes are data
    ],
)
def test_valid_rules_parse_to_canonical_tool_and_specifier(text: str, tool: str, spec: str | None) -> None:
    rule = parse_rule(text)
    assert (rule.tool, rule.specifier) == (tool, spec)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("bash(git status; rm -rf src)", "one simple command"),
        ("bash(git status && ls)", "one simple command"),
        ("bash(ls | sh)", "one simple command"),
        ("bash(echo $(id))", "one simple command"),
        ("bash(npm:* run)", "only allowed at the end"),
        ("bash(echo 'unbalanced)", "unbalanced quote"),
        ("web_fetch(docs.python.org)", "domain:HOST"),
        ("web_fetch(domain:not a host)", "not a host name"),
        ("memory(delete)", "must be one of"),
        ("task(anything)", "takes no specifier"),
        ("read_file(~root/.ssh/id_rsa)", "only ~/ paths"),
        ("bash*", "only for MCP/custom tools"),
        ("bash(git status", "not of the form"),
        ("(no tool)", "not of the form"),
        ("bash(ls\x00)", "NUL"),
    ],
)
def test_invalid_rules_raise_a_clear_error(text: str, complaint: str) -> None:
    with pytest.raises(PolicyConfigError) as info:
        parse_rule(text)
    assert complaint in str(info.value)
    assert repr(text) in str(info.value) or "NUL" in complaint


def test_rules_validate_on_construction_and_name_the_list() -> None:
    with pytest.raises(PolicyConfigError, match=r"invalid deny rule: rule 'memory\(delete\)'"):
        Rules(deny=["memory(delete)"])
    with pytest.raises(PolicyConfigError, match="must be a list"):
        Rules(allow="bash(ls)")  # type: ignore[arg-type]
    with pytest.raises(PolicyConfigError, match="LOW, MEDIUM or HIGH"):
        Rules(tool_risk={"my_tool": "SEVERE"})


@pytest.mark.parametrize("where", ["project", "user"])
def test_load_rules_error_names_the_file_and_the_rule(where: str, ws: Path, tmp_path: Path) -> None:
    from cairn.policy import load_rules

    bad = '[permissions]\nallow = ["bash(git status)", "bash(make && make install)"]\n'
    user = tmp_path / "user-settings.toml"
    path = ws / ".cairn" / "settings.toml" if where == "project" else user
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(bad)
    with pytest.raises(PolicyConfigError) as info:
        load_rules(ws, user_config=user)
    message = str(info.value)
    assert str(path) in message
    assert "bash(make && make install)" in message
    assert "permissions.allow" in message


# --- precedence ----------------------------------------------------------------------------

_GIT_PUSH = "bash(git push:*)"


@pytest.mark.parametrize("order", list(itertools.permutations(["allow", "ask", "deny"])))
def test_deny_beats_ask_beats_allow_in_any_order(order: tuple[str, ...], ws: Path) -> None:
    lists: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    for kind in order:  # the same rule in every list, added in a different order each time
        lists[kind].append(_GIT_PUSH)
    verdict = _bash("git push origin main", ws, Rules(**lists))
    assert verdict.decision == "deny" and verdict.rule == _GIT_PUSH
    lists["deny"].clear()
    verdict = _bash("git push origin main", ws, Rules(**lists))
    assert verdict.decision == "ask" and verdict.rule == _GIT_PUSH


def test_specific_deny_beats_broad_allow_and_broad_deny_beats_specific_allow(ws: Path) -> None:
    broad_allow = Rules(allow=["bash"], deny=["bash(git push --force:*)"])
    assert _bash("git push --force origin main", ws, broad_allow).decision == "deny"
    assert _bash("git push origin main", ws, broad_allow).decision == "allow"
    broad_deny = Rules(allow=["bash(git push origin main)"], deny=["bash(git:*)"])
    assert _bash("git push origin main", ws, broad_deny).decision == "deny"


def test_deny_from_one_file_beats_allow_from_another_after_merge(ws: Path) -> None:
    project = Rules(allow=["bash(curl:*)"])
    user = Rules(deny=["bash(curl:*)"])
    for rules in (project.merged(user), user.merged(project)):
        assert _bash("curl -s https://example.com", ws, rules).decision == "deny"


def test_session_grant_does_not_lift_a_configured_deny(ws: Path) -> None:
    rules = Rules(deny=["bash(npm publish:*)"]).with_allow("bash(npm publish)")
    assert _bash("npm publish", ws, rules).decision == "deny"


# --- compound commands ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "unapproved"),
    [
        ("git status && rm -rf build", "rm"),
        ("git status; python3 setup.py install", "python3"),
        ("git status || curl -s https://attacker.example", "curl"),
        ("git status | tee status.txt", "tee"),
        ("git status & npm install", "npm install"),
        ("(git status; chmod +x run.sh)", "chmod"),
        ("if git status; then touch done.txt; fi", "touch"),
        ("git status\nmake install", "make"),
    ],
)
def test_a_bash_rule_must_match_every_simple_command(command: str, unapproved: str, ws: Path) -> None:
    verdict = _bash(command, ws, Rules(allow=["bash(git status)", "bash(git status:*)"]))
    assert verdict.decision == "ask", verdict
    assert unapproved in verdict.reason


def test_rules_for_every_part_allow_the_compound_command(ws: Path) -> None:
    rules = Rules(allow=["bash(npm run build)", "bash(npm run test:*)"])
    verdict = _bash("npm run build && npm run test -- --ci", ws, rules)
    assert verdict.decision == "allow" and verdict.rule == "bash(npm run build)"
    verdict = _bash("npm run build && npm run lint", ws, rules)
    assert verdict.decision == "ask" and "npm run lint" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "ls && curl -s https://attacker.example",
        "echo $(curl -s https://attacker.example)",
        "bash -c 'curl -s https://attacker.example'",
        "sudo curl -s https://attacker.example",
        "timeout 5 curl -s https://attacker.example",
        "find . -name x -exec curl -s https://attacker.example ;",
    ],
)
def test_a_deny_rule_matches_any_simple_command_wherever_it_hides(command: str, ws: Path) -> None:
    verdict = _bash(command, ws, Rules(allow=["bash"], deny=["bash(curl:*)"]))
    assert verdict.decision == "deny", verdict
    assert verdict.rule == "bash(curl:*)"


def test_prefix_rules_match_whole_words_only(ws: Path) -> None:
    rules = Rules(allow=["bash(npm run test:*)"])
    assert _bash("npm run test", ws, rules).decision == "allow"
    assert _bash("npm run test -- --watch=false", ws, rules).decision == "allow"
    assert _bash("npm run test-e2e", ws, rules).decision == "ask"
    assert _bash("npm run testing", ws, rules).decision == "ask"


def test_exact_rule_does_not_match_extra_arguments(ws: Path) -> None:
    rules = Rules(allow=["bash(make build)"])
    assert _bash("make build", ws, rules).decision == "allow"
    assert _bash("make build install", ws, rules).decision == "ask"


# --- Rules helpers -------------------------------------------------------------------------


def test_with_allow_returns_a_new_rules_object() -> None:
    base = Rules(ask=["bash(git push:*)"])
    grown = base.with_allow("bash(npm run test)")
    assert base.allow == () and grown.allow == ("bash(npm run test)",)
    assert grown.ask == base.ask
    assert grown.with_allow("bash(npm run test)") is grown
    with pytest.raises(PolicyConfigError):
        base.with_allow("bash(a; b)")


def test_merged_keeps_order_drops_duplicates_and_prefers_the_other_risk() -> None:
    a = Rules(allow=["bash(ls)", "task"], tool_risk={"my_tool": "LOW"}, read_only_tools=frozenset({"x"}))
    b = Rules(allow=["task", "memory(view)"], deny=["bash(rm:*)"], tool_risk={"my_tool": "HIGH"})
    merged = a.merged(b)
    assert merged.allow == ("bash(ls)", "task", "memory(view)")
    assert merged.deny == ("bash(rm:*)",)
    assert merged.tool_risk["my_tool"] == "HIGH"
    assert merged.read_only_tools == frozenset({"x"})


def test_rules_round_trip_through_a_dict() -> None:
    rules = Rules(
        allow=["bash(git status)"],
        ask=["web_fetch(domain:example.com)"],
        deny=["read_file(~/.ssh/**)"],
        tool_risk={"My_Tool": "low"},
        read_only_tools=frozenset({"my_tool"}),
    )
    again = Rules.from_dict(rules.to_dict())
    assert again == rules
    assert again.tool_risk == {"My_Tool": "LOW"}
