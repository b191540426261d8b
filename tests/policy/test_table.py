"""The risk table covers every registered tool; aliases, workspace forms and argument shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn import policy
from cairn.policy import DEFAULT_TOOL_RISK, DEFAULT_UNKNOWN_RISK, Decision, RiskLevel, Verdict, evaluate
from cairn.policy.levels import max_risk, strictest
from cairn.policy.table import canonical_tool_name
from cairn.tools.workspace import Workspace


def test_every_registered_tool_has_a_risk_entry(workspace: str) -> None:
    from cairn.tools import builtin_tool_classes, create_default_tools

    tools = create_default_tools(workspace=workspace)
    assert tools, "no built-in tools registered"
    # every class, including tools a session offers only when configured (web_search)
    missing = [cls.name for cls in builtin_tool_classes() if cls.name not in DEFAULT_TOOL_RISK]
    assert missing == []


def test_table_levels_match_the_design() -> None:
    low = {
        "read_file",
        "ls",
        "glob",
        "grep",
        "bash_output",
        "kill_bash",
        "todo_write",
        "task_create",
        "task_list",
        "task_update",
        "agent_status",
        "agent_list",
        "web_search",
    }
    low |= {"tool_search", "list_skills", "read_skill", "slash_command"}
    # gitignore and memory are MEDIUM tools with a LOW read action (check, view)
    medium = {
        "edit_file",
        "write_file",
        "web_fetch",
        "agent",
        "agent_merge",
        "memory",
        "save_memory",
        "gitignore",
    }
    assert {n for n, r in DEFAULT_TOOL_RISK.items() if r == RiskLevel.LOW} == low
    assert {n for n, r in DEFAULT_TOOL_RISK.items() if r == RiskLevel.MEDIUM} == medium
    assert DEFAULT_TOOL_RISK["bash"] == RiskLevel.HIGH
    assert DEFAULT_UNKNOWN_RISK == RiskLevel.MEDIUM
    assert policy.RiskLevel is __import__("cairn.tools.base", fromlist=["RiskLevel"]).RiskLevel


def test_every_tool_alias_canonicalizes_to_its_tool(workspace: str) -> None:
    from cairn.tools import builtin_tool_classes

    for cls in builtin_tool_classes():
        assert canonical_tool_name(cls.name) == cls.name
        for alias in cls.aliases:
            assert canonical_tool_name(alias) == cls.name, alias
            assert canonical_tool_name(alias.upper()) == cls.name, alias


def test_aliases_from_other_agents_settings_name_built_in_tools() -> None:
    # rules copied from other agents' settings: MultiEdit(...) and List(...) are cairn's edit_file and ls
    assert canonical_tool_name("MultiEdit") == "edit_file"
    assert canonical_tool_name("list") == "ls"
    assert canonical_tool_name("Task") == "agent"


@pytest.mark.parametrize(
    ("alias", "canonical", "args"),
    [
        ("Bash", "bash", {"command": "git status"}),
        ("BASH", "bash", {"command": "rm -rf src"}),
        ("Read", "read_file", {"file_path": "src/app.py"}),
        ("Write", "write_file", {"file_path": "x.txt", "content": "x"}),
        ("Edit", "edit_file", {"file_path": "src/app.py"}),
        ("WebFetch", "web_fetch", {"url": "http://127.0.0.1/"}),
        ("Glob", "glob", {"pattern": "**/*.py"}),
        ("Grep", "grep", {"pattern": "x"}),
        ("ListDir", "ls", {"path": "."}),
    ],
)
def test_aliases_get_the_same_verdict_and_rules(alias: str, canonical: str, args: dict, ws: Path) -> None:
    a = evaluate(alias, args, workspace=ws, resolve_dns=False)
    b = evaluate(canonical, args, workspace=ws, resolve_dns=False)
    assert a == b
    denied = policy.Rules(deny=[canonical])
    assert evaluate(alias, args, workspace=ws, rules=denied, resolve_dns=False).decision == "deny"


def test_unknown_tools_are_medium_and_ask(ws: Path) -> None:
    verdict = evaluate("mcp__github__create_issue", {"title": "x"}, workspace=ws)
    assert verdict.decision == "ask" and verdict.risk == "MEDIUM"
    assert canonical_tool_name("mcp__github__create_issue") == "mcp__github__create_issue"


@pytest.mark.parametrize("form", [str, Path, Workspace])
def test_workspace_forms(form: type, ws: Path) -> None:
    verdict = evaluate("read_file", {"file_path": "src/app.py"}, workspace=form(str(ws)))
    assert verdict.decision == "allow"


@pytest.mark.parametrize(
    "args",
    [None, "", '{"command": "git status"}', "not json", ["git", "status"], {"command": 42}, {}],
)
def test_odd_argument_shapes_never_raise_and_never_allow_blindly(args: object, ws: Path) -> None:
    verdict = evaluate("bash", args, workspace=ws)  # type: ignore[arg-type]
    assert isinstance(verdict, Verdict)
    if args == '{"command": "git status"}':
        assert verdict.decision == "allow"  # JSON text is accepted
    else:
        assert verdict.decision == "ask"


def test_an_internal_error_fails_closed(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    module = sys.modules["cairn.policy.evaluate"]  # `cairn.policy.evaluate` the attribute is the function

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "decide_bash", broken)
    verdict = evaluate("bash", {"command": "ls"}, workspace=ws)
    assert verdict.decision == "ask" and verdict.risk == "HIGH" and "boom" in verdict.reason


def test_verdict_to_dict_is_plain_json() -> None:
    verdict = Verdict(Decision.ALLOW, RiskLevel.LOW, "read-only", "bash(ls)", "workspace-write")
    data = verdict.to_dict()
    assert data == {
        "decision": "allow",
        "risk": "LOW",
        "reason": "read-only",
        "rule": "bash(ls)",
        "sandbox": "workspace-write",
    }
    assert all(type(v) is str for v in data.values())
    assert json.loads(json.dumps(data)) == data
    assert verdict.allowed and not Verdict(Decision.ASK, RiskLevel.LOW, "x").allowed


def test_orderings() -> None:
    assert strictest(Decision.ALLOW, Decision.DENY, Decision.ASK) == Decision.DENY
    assert strictest() == Decision.ALLOW
    assert max_risk(RiskLevel.LOW, RiskLevel.HIGH, RiskLevel.MEDIUM) == RiskLevel.HIGH
    assert max_risk() == RiskLevel.LOW


def test_public_api_names() -> None:
    for name in (
        "RiskLevel",
        "Decision",
        "Verdict",
        "Rules",
        "evaluate",
        "load_rules",
        "check_url",
        "suggest_rule",
        "DEFAULT_TOOL_RISK",
        "DEFAULT_UNKNOWN_RISK",
        "MODES",
        "PolicyConfigError",
    ):
        assert hasattr(policy, name), name
