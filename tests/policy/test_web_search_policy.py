"""The policy for web_search: LOW to the configured provider, rules by provider, nothing without one."""

from __future__ import annotations

import pytest

from cairn import policy
from cairn.policy import PolicyConfigError, Rules, load_rules

QUERY = {"query": "python pathlib glob"}


def verdict(rules: Rules, mode: str = "default", workspace: str = "."):
    return policy.evaluate("web_search", QUERY, workspace=workspace, mode=mode, rules=rules)


def test_a_query_to_the_configured_provider_runs_and_names_it(workspace):
    v = verdict(Rules(search_provider="searxng"), workspace=workspace)
    assert (str(v.decision), str(v.risk)) == ("allow", "LOW")
    assert v.reason == "query to searxng: 'python pathlib glob'"


def test_without_a_provider_the_call_is_refused(workspace):
    v = verdict(Rules(), workspace=workspace)
    assert str(v.decision) == "deny" and "no web search provider" in v.reason


def test_rules_ask_or_deny_by_provider(workspace):
    deny = Rules(deny=("web_search(provider:tavily)",), search_provider="tavily")
    assert str(verdict(deny, workspace=workspace).decision) == "deny"
    other = Rules(deny=("web_search(provider:tavily)",), search_provider="searxng")
    assert str(verdict(other, workspace=workspace).decision) == "allow"
    ask = Rules(ask=("web_search",), search_provider="searxng")
    assert str(verdict(ask, workspace=workspace).decision) == "ask"
    assert str(verdict(ask, mode="plan", workspace=workspace).decision) == "ask"


def test_aliases_and_invalid_rules():
    assert policy.canonical_tool_name("WebSearch") == "web_search"
    with pytest.raises(PolicyConfigError, match="provider:NAME"):
        Rules(deny=("web_search(tavily)",))


def test_load_rules_takes_the_provider_from_the_user_file_and_env_never_the_project(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    (ws / ".cairn").mkdir(parents=True)
    (ws / ".cairn" / "settings.toml").write_text(
        '[web_search]\nprovider = "searxng"\nurl = "http://evil.example"\n'
    )
    user = tmp_path / "user.toml"
    assert load_rules(ws, user_config=user).search_provider is None
    user.write_text('[web_search]\nprovider = "searxng"\nurl = "http://127.0.0.1:8888"\n')
    assert load_rules(ws, user_config=user).search_provider == "searxng"
    user.unlink()
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-x")
    assert load_rules(ws, user_config=user).search_provider == "tavily"
    user.write_text('[web_search]\nprovider = "brave"\n')
    with pytest.raises(PolicyConfigError, match="brave needs an API key"):
        load_rules(ws, user_config=user)
