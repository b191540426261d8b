"""The CLI's extension surface: --mcp-config, `cairn mcp list|approve`, project servers asked once,
--trust-project-mcp for headless runs, custom slash commands in the interactive prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import cairn_cmd, call, last_json_line
from tests.extensions.conftest import stdio_server

pytestmark = pytest.mark.slow  # each test starts cairn and MCP server processes


def _project_config(workspace: str, tmp_path: Path) -> Path:
    started = tmp_path / "started"
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    entry = stdio_server(marks, "--started", str(started))
    Path(workspace, ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": entry}}))
    return started


def test_mcp_list_shows_explicit_servers_and_waits_for_project_approval(run_cairn, workspace, tmp_path):
    started = _project_config(workspace, tmp_path)
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"mcpServers": {"mine": stdio_server(tmp_path)}}))
    out = run_cairn("mcp", "list", "--mcp-config", str(extra))
    assert out.returncode == 0, out.stderr
    assert "mine  running  stdio" in out.stdout
    assert "tools: echo, add, effect, fail, crash" in out.stdout
    assert "proj  awaiting approval" in out.stdout and "cairn mcp approve" in out.stdout
    assert not started.exists()
    out = run_cairn("mcp", "approve")
    assert out.returncode == 0 and "approved proj" in out.stdout
    assert started.exists()
    rows = json.loads(run_cairn("mcp", "list", "--json").stdout)
    assert rows == [
        {
            "name": "proj",
            "transport": "stdio",
            "source": str(Path(workspace, ".mcp.json")),
            "project": True,
            "status": "running",
            "error": None,
            "tools": ["echo", "add", "effect", "fail", "crash"],
        }
    ]


@pytest.mark.usefixtures("db_location")  # runs a session: on SQLite and PostgreSQL
def test_headless_runs_need_trust_for_project_servers(run_cairn, script, workspace, tmp_path):
    started = _project_config(workspace, tmp_path)
    turns = [{"tool_calls": [call("mcp__proj__echo", "e1", text="x")]}, {"content": "done"}]
    out = run_cairn("-p", "go", "--model", script(turns), "--output-format", "json")
    assert "project MCP servers not started (never approved): proj" in out.stderr
    assert not started.exists()
    assert "Unknown tool 'mcp__proj__echo'" in json.dumps(last_json_line(out.stdout))
    out = run_cairn("-p", "go", "--model", script(turns), "--output-format", "json", "--trust-project-mcp")
    assert out.returncode == 0, out.stderr
    result = last_json_line(out.stdout)
    assert result["status"] == "done" and result["tool_calls"][0]["result"].endswith("echo: x")
    assert started.exists()


def test_bad_mcp_config_is_a_usage_error(run_cairn, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {"args": []}}}')
    out = run_cairn("mcp", "list", "--mcp-config", str(bad))
    assert out.returncode == 2 and "needs 'command'" in out.stderr


@pytest.mark.usefixtures("db_location")  # runs a session: on SQLite and PostgreSQL
def test_interactive_asks_for_project_servers_and_runs_custom_commands(cli_env, script, workspace, tmp_path):
    started = _project_config(workspace, tmp_path)
    commands = Path(workspace, ".cairn", "commands")
    commands.mkdir(parents=True)
    (commands / "greet.md").write_text(
        "---\ndescription: Greet someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n"
    )
    turns = [{"content": "Hello, Ada!"}]
    cmd = cairn_cmd()
    child = pexpect.spawn(
        cmd[0],
        [*cmd[1:], "--model", script(turns)],
        cwd=workspace,
        env=cli_env | {"NO_COLOR": "1"},
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=60,
    )
    try:
        child.expect("Type a message")
        child.expect("› ")
        child.sendline("/help")
        child.expect(r"/greet NAME\s+Greet someone \(project\)")
        child.expect("› ")
        child.sendline("/greet Ada")
        child.expect("runs these commands on your machine")
        child.expect("proj: ")
        child.expect("start them\\?")
        child.send("y")
        child.expect("approved; started")
        child.expect("Hello, Ada!")
        child.expect("› ")
        assert started.exists()
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        if child.isalive():
            child.terminate(force=True)
    import subprocess

    sid = json.loads(
        subprocess.run(
            [*cairn_cmd(), "sessions", "--json"], cwd=workspace, env=cli_env, capture_output=True, text=True
        ).stdout
    )[0]["session_id"]
    shown = subprocess.run(
        [*cairn_cmd(), "show", sid, "--json"], cwd=workspace, env=cli_env, capture_output=True, text=True
    )
    assert "Say hello to Ada." in shown.stdout
