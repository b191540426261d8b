"""Hooks through the real ``cairn`` command: list/approve, headless trust, stream-json, show."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.sqlite_only("the CLI's hook handling does not depend on the store"),
]

LOGGER = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CAIRN_PROJECT_DIR"], "sub", sys.argv[1] + ".jsonl"), "a") as fh:
    fh.write(json.dumps(data) + "\\n")
"""


def _setup(workspace: str) -> None:
    ws = Path(workspace)
    (ws / "sub").mkdir()
    (ws / "logger.py").write_text(LOGGER)
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text(
        f'[[hooks.PreToolUse]]\nmatcher = "Read"\ncommand = "{sys.executable} logger.py project"\n'
    )
    home = Path(os.environ["CAIRN_HOME"])
    (home / "settings.toml").write_text(
        f'[[hooks.PostToolUse]]\nmatcher = "read_file"\ncommand = "{sys.executable} logger.py user"\n'
    )


def test_hooks_list_and_approve(run_cairn, workspace):
    _setup(workspace)
    p = run_cairn("hooks", "list", "--json")
    assert p.returncode == 0, p.stderr
    rows = {r["source"]: r for r in json.loads(p.stdout)}
    assert rows["user"]["event"] == "PostToolUse" and rows["user"]["status"] == "active"
    assert rows["project"]["status"] == "awaiting approval" and rows["project"]["matcher"] == "Read"
    p = run_cairn("hooks", "approve", "--sandbox", "off")
    assert p.returncode == 0 and "approved the project's 1 hook(s) (sandbox: off)" in p.stdout
    rows = {r["source"]: r for r in json.loads(run_cairn("hooks", "list", "--json").stdout)}
    assert rows["project"]["status"] == "trusted" and rows["project"]["sandbox"] == "off"
    # A change to the project's hooks asks again.
    settings = Path(workspace, ".cairn", "settings.toml")
    settings.write_text(settings.read_text().replace("project", "project2"))
    text = run_cairn("hooks", "list").stdout
    assert "awaiting approval" in text and "cairn hooks approve" in text


@pytest.mark.smoke
def test_headless_holds_project_hooks_until_trusted(run_cairn, workspace, script):
    _setup(workspace)
    Path(workspace, "a.txt").write_text("hello\n")
    turns = [
        {"tool_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}, "id": "r1"}]},
        {"content": "done"},
    ]
    p = run_cairn("-p", "read it", "--model", script(turns), "--output-format", "stream-json")
    assert p.returncode == 0, p.stderr
    assert "hook(s) did not run (never approved)" in p.stderr
    sub = Path(workspace, "sub")
    assert not (sub / "project.jsonl").exists()
    [post] = [json.loads(line) for line in (sub / "user.jsonl").read_text().splitlines()]
    assert post["hook_event_name"] == "PostToolUse" and post["tool_name"] == "Read"
    assert "hello" in post["tool_response"]["output"]
    events = [json.loads(line) for line in p.stdout.splitlines()]
    [end] = [e for e in events if e["type"] == "tool_end"]
    assert [h["event"] for h in end["call"]["hooks"]] == ["PostToolUse"]
    assert any(e["type"] == "hook" and e["event"] == "PostToolUse" for e in events)

    p = run_cairn(
        "-p", "read it", "--model", script(turns), "--trust-project-hooks", "--output-format", "json"
    )
    assert p.returncode == 0, p.stderr
    [pre] = [json.loads(line) for line in (sub / "project.jsonl").read_text().splitlines()]
    assert pre["hook_event_name"] == "PreToolUse" and pre["tool_input"] == {"file_path": "a.txt"}
    sid = json.loads(p.stdout)["session_id"]
    shown = json.loads(run_cairn("show", sid, "--json").stdout)
    [call] = shown["tool_calls"]
    assert [h["event"] for h in call["hooks"]] == ["PreToolUse", "PostToolUse"]
    text = run_cairn("show", sid).stdout
    assert "hook PreToolUse project:" in text and "hook PostToolUse user:" in text
