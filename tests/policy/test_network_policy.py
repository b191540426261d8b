"""Network grants in the policy: rules with domains, the user's [sandbox] table, offers."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.policy import evaluate
from cairn.policy.errors import PolicyConfigError
from cairn.policy.rules import Rules, parse_rule
from cairn.policy.sandbox import load_sandbox_settings
from cairn.policy.settings import load_rules


def test_a_bash_rule_carries_its_domains() -> None:
    rule = parse_rule("bash(pip install:*; domain:PyPI.org, files.pythonhosted.org)")
    assert rule.specifier == "pip install:*"
    assert rule.domains == ("pypi.org", "files.pythonhosted.org")
    assert str(rule) == "bash(pip install:*; domain:pypi.org,files.pythonhosted.org)"
    assert parse_rule(str(rule)) == parse_rule(str(rule))  # round trip
    assert parse_rule("bash(*; domain:example.org)").specifier is None


@pytest.mark.parametrize(
    "text",
    [
        "bash(pip install:*; domain:)",
        "bash(pip install:*; domain:10.0.0.1)",
        "bash(pip install:*; domain:bad name)",
        "bash(pip install; rm x)",
    ],
)
def test_malformed_domain_rules_are_config_errors(text: str) -> None:
    with pytest.raises(PolicyConfigError):
        parse_rule(text)


def test_domains_belong_in_allow_rules() -> None:
    with pytest.raises(PolicyConfigError, match="belongs in allow rules"):
        Rules(deny=("bash(curl:*; domain:example.org)",))


def test_the_allowing_rule_grants_its_domains_and_nothing_else_does(tmp_path: Path) -> None:
    rules = Rules(allow=("bash(pip install:*; domain:pypi.org,files.pythonhosted.org)",))
    verdict = evaluate("bash", {"command": "pip install requests"}, workspace=tmp_path, rules=rules)
    assert str(verdict.decision) == "allow" and verdict.network == ("pypi.org", "files.pythonhosted.org")
    assert verdict.to_dict()["network"] == ["pypi.org", "files.pythonhosted.org"]
    asked = evaluate("bash", {"command": "pip install requests"}, workspace=tmp_path)
    assert str(asked.decision) == "ask" and asked.network == ()
    assert asked.network_offer == ("pypi.org", "files.pythonhosted.org")  # offered, not granted


@pytest.mark.parametrize(
    ("command", "offer"),
    [
        ("npm ci", ("registry.npmjs.org",)),
        ("python3 -m pip download x", ("pypi.org", "files.pythonhosted.org")),
        ("cargo build", ("crates.io", "index.crates.io", "static.crates.io")),
        ("go mod download", ("proxy.golang.org", "sum.golang.org")),
        ("make install", ()),
    ],
)
def test_package_managers_offer_their_registries(
    tmp_path: Path, command: str, offer: tuple[str, ...]
) -> None:
    verdict = evaluate("bash", {"command": command}, workspace=tmp_path)
    assert verdict.network_offer == offer


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_network_settings_come_from_the_user_file_only(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(ws / ".cairn" / "settings.toml", '[sandbox]\nallowed_domains = ["evil.example"]\n')
    user = _write(
        tmp_path / "user.toml",
        '[sandbox]\nallowed_domains = ["PyPI.org"]\nnetwork_hosts = { "mirror.corp" = ["10.1.2.3"] }\n',
    )
    settings = load_sandbox_settings(ws, user_config=user)
    assert settings.allowed_domains == ("pypi.org",)
    assert settings.network_hosts == {"mirror.corp": ("10.1.2.3",)}
    assert settings.enabled


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('allowed_domains = "pypi.org"', "must be a list"),
        ('allowed_domains = ["1.2.3.4"]', "not a domain name"),
        ('network_hosts = { "mirror.corp" = "not-an-ip" }', "IP address"),
        ("network = true", "unknown key"),
    ],
)
def test_bad_network_settings_name_the_file_and_key(tmp_path: Path, table: str, problem: str) -> None:
    user = _write(tmp_path / "user.toml", f"[sandbox]\n{table}\n")
    with pytest.raises(PolicyConfigError, match=problem) as caught:
        load_sandbox_settings(tmp_path, user_config=user)
    assert str(user) in str(caught.value)


def test_a_project_rule_allows_the_command_but_grants_no_network(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(ws / ".cairn" / "settings.toml", '[permissions]\nallow = ["bash(make:*; domain:evil.example)"]\n')
    rules = load_rules(ws, user_config=tmp_path / "none.toml")
    assert rules.allow == ("bash(make:*)",)
    verdict = evaluate("bash", {"command": "make all"}, workspace=ws, rules=rules)
    assert str(verdict.decision) == "allow" and verdict.network == ()
