"""Settings files: the project's .cairn/settings.toml and the user's $CAIRN_HOME/settings.toml."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn.errors import ConfigError
from cairn.policy import Rules, evaluate, load_rules
from cairn.settings_files import project_settings_file, user_settings_file
from cairn.tools.workspace import Workspace


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _project(ws: Path, text: str) -> Path:
    return _write(ws / ".cairn" / "settings.toml", text)


def _user(text: str) -> Path:
    return _write(Path(os.environ["CAIRN_HOME"]) / "settings.toml", text)


def test_no_settings_files_mean_no_rules(ws: Path) -> None:
    assert load_rules(ws) == Rules()


def test_project_and_user_files_are_merged(ws: Path) -> None:
    _project(
        ws,
        """
[permissions]
allow = ["bash(npm run test:*)", "bash(git status)"]
deny = ["read_file(.env)"]
read_only_tools = ["search_docs"]

[tool_risk]
search_docs = "LOW"

[model]   # other parts of cairn read other tables; the policy ignores them
name = "whatever"
""",
    )
    _user(
        """
[permissions]
allow = ["bash(git status)", "web_fetch(domain:docs.python.org)"]
ask = ["bash(git push:*)"]

[tool_risk]
search_docs = "MEDIUM"
""",
    )
    rules = load_rules(ws)
    assert rules.allow == ("bash(npm run test:*)", "bash(git status)", "web_fetch(domain:docs.python.org)")
    assert rules.ask == ("bash(git push:*)",)
    assert rules.deny == ("read_file(.env)",)
    assert rules.read_only_tools == frozenset({"search_docs"})
    assert rules.tool_risk["search_docs"] == "MEDIUM"  # the user's file wins


@pytest.mark.parametrize("kind", [str, Path, Workspace])
def test_workspace_may_be_a_str_a_path_or_a_workspace(kind: type, ws: Path) -> None:
    _project(ws, '[permissions]\nallow = ["bash(make)"]\n')
    assert load_rules(kind(str(ws))).allow == ("bash(make)",)
    assert project_settings_file(ws) == ws / ".cairn" / "settings.toml"


def test_explicit_user_config_replaces_cairn_home(ws: Path, tmp_path: Path) -> None:
    _user('[permissions]\nallow = ["bash(from-cairn-home)"]\n')
    other = _write(tmp_path / "other.toml", '[permissions]\nallow = ["bash(from-explicit-file)"]\n')
    assert load_rules(ws, user_config=other).allow == ("bash(from-explicit-file)",)
    assert load_rules(ws).allow == ("bash(from-cairn-home)",)


def test_user_settings_file_follows_cairn_home_then_platformdirs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CAIRN_HOME", str(tmp_path / "state"))
    assert user_settings_file() == tmp_path / "state" / "settings.toml"
    monkeypatch.delenv("CAIRN_HOME")
    import platformdirs

    assert user_settings_file() == Path(platformdirs.user_config_dir("cairn")) / "settings.toml"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("[permissions\nallow = []", "invalid TOML"),
        ('permissions = "all"', "[permissions] must be a table"),
        ('[permissions]\nallow = "bash(ls)"', "permissions.allow must be a list"),
        ("[permissions]\nalow = []", "unknown key(s) in [permissions]: alow"),
        ('[permissions]\ndeny = ["web_fetch(example.com)"]', "web_fetch(example.com)"),
        ("[permissions]\nread_only_tools = [1]", "read_only_tools must be a list of tool names"),
        ('[tool_risk]\nmy_tool = "CRITICAL"', "must be LOW, MEDIUM or HIGH"),
        ('tool_risk = "LOW"', "[tool_risk] must be a table"),
    ],
)
@pytest.mark.parametrize("where", ["project", "user"])
def test_invalid_settings_name_the_file(where: str, text: str, complaint: str, ws: Path) -> None:
    path = _project(ws, text) if where == "project" else _user(text)
    with pytest.raises(ConfigError) as info:
        load_rules(ws)
    assert str(path) in str(info.value)
    assert complaint in str(info.value)


def test_undecodable_settings_file_is_a_config_error(ws: Path) -> None:
    path = ws / ".cairn" / "settings.toml"
    path.parent.mkdir()
    path.write_bytes(b"\xff\xfe[permissions]")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_rules(ws)


def test_loaded_rules_decide_calls(ws: Path) -> None:
    _project(ws, '[permissions]\nallow = ["bash(npm run test:*)", "bash(curl:*)"]\n')
    _user('[permissions]\ndeny = ["bash(curl:*)", "read_file(src/secret/**)"]\n')
    rules = load_rules(ws)

    def decide(tool: str, args: dict) -> str:
        return str(evaluate(tool, args, workspace=ws, rules=rules, resolve_dns=False).decision)

    assert decide("bash", {"command": "npm run test"}) == "allow"
    assert decide("bash", {"command": "curl -s https://example.com"}) == "deny"
    assert decide("read_file", {"file_path": "src/secret/key.pem"}) == "deny"
    assert decide("read_file", {"file_path": "src/app.py"}) == "allow"
