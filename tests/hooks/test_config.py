"""``parse_hooks``: the user's and the project's tables → ``HooksConfig`` (pure)."""

from __future__ import annotations

import pytest

from cairn.graph.core.hooks.config import HooksConfigError, parse_hooks
from cairn.graph.core.hooks.matching import display_name, matches


def test_both_sources_and_claude_codes_nested_shape():
    user = {"hooks": {"PreToolUse": [{"matcher": "Bash", "command": "audit", "timeout": 5}]}}
    project = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [{"type": "command", "command": "fmt"}, {"command": "lint"}],
                }
            ]
        }
    }
    config = parse_hooks(user, project)
    assert [(h.event, h.matcher, h.command, h.timeout, h.source) for h in config.hooks] == [
        ("PreToolUse", "Bash", "audit", 5.0, "user"),
        ("PostToolUse", "Edit|Write", "fmt", 60.0, "project"),
        ("PostToolUse", "Edit|Write", "lint", 60.0, "project"),
    ]
    assert len(config.project_hash) == 16
    assert parse_hooks(user, None).project_hash == ""
    changed = {"hooks": {"PostToolUse": [{"matcher": "Edit", "command": "fmt"}]}}
    assert parse_hooks(None, changed).project_hash != config.project_hash
    assert parse_hooks({"other": 1}, {"hooks": {}}).hooks == ()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"hooks": {"Prestart": [{"command": "x"}]}}, "unknown hook event 'Prestart'"),
        ({"hooks": {"Stop": {"command": "x"}}}, "must be an array of tables"),
        ({"hooks": {"Stop": [{"command": ""}]}}, "command must be a non-empty string"),
        ({"hooks": {"Stop": [{"command": "x", "timeout": 0}]}}, "timeout must be a number"),
        ({"hooks": {"Stop": [{"command": "x", "when": 1}]}}, "unknown key"),
        ({"hooks": {"Stop": [{"command": "x", "matcher": "("}]}}, "not a valid regex"),
        ({"hooks": {"Stop": [{"type": "prompt", "command": "x"}]}}, 'only type = "command"'),
        ({"hooks": []}, "must be a table"),
    ],
)
def test_malformed_entries_name_the_source_and_entry(table, message):
    with pytest.raises(HooksConfigError, match=message.replace("(", r"\(")) as info:
        parse_hooks(None, table)
    assert str(info.value).startswith("project settings [hooks]")


def test_python_callables_join_the_config():
    def fn(event):
        return None

    config = parse_hooks(None, None).with_python({"Stop": fn, "PreToolUse": [("Bash", fn)]})
    assert [(h.event, h.matcher, h.source) for h in config.hooks] == [
        ("Stop", "*", "python"),
        ("PreToolUse", "Bash", "python"),
    ]
    with pytest.raises(HooksConfigError, match="needs a callable"):
        parse_hooks(None, None).with_python({"Stop": "not callable"})


def test_matchers_match_names_and_aliases_in_full():
    names = ("bash", "Bash", "shell", "run_command")
    assert (
        matches("Bash", names)
        and matches("bash|edit_file", names)
        and matches("*", names)
        and matches("", names)
    )
    assert not matches("Bas", names) and not matches("Edit", names)
    assert matches("mcp__.*", ("mcp__docs__search",))
    assert display_name("bash", ("Bash", "shell")) == "Bash"
    assert display_name("effect", ()) == "effect"
    assert display_name("ls", ("LS", "ListDir")) == "LS"
