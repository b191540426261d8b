"""Where MCP servers come from, how tools are named, and project servers waiting for approval."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cairn import Session
from cairn.graph.core.settings import load_settings
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.tools.mcp_servers import McpConfigError, load_server_specs, parse_servers, tool_name
from cairn.tools.workspace import Workspace
from tests.extensions.conftest import stdio_server


def test_tool_names_are_sanitised_and_bounded():
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my server.v2", "do/thing!") == "mcp__my_server_v2__do_thing_"
    long = tool_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__sss")
    assert long != tool_name("s" * 40, "t" * 39 + "u")  # cut names stay distinct


def test_entries_become_adapter_connections(tmp_path):
    specs = parse_servers(
        {
            "local": {"command": "npx", "args": ["-y", "srv"], "env": {"K": "${HOME}"}, "cwd": "sub"},
            "remote": {"url": "https://example.test/mcp", "headers": {"Authorization": "Bearer x"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
            "off": {"command": "x", "disabled": True},
        },
        "test",
        base=tmp_path,
    )
    by = {s.name: s.connection for s in specs}
    assert set(by) == {"local", "remote", "legacy"}
    assert by["local"] == {
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "srv"],
        "env": {"K": "${HOME}"},
        "cwd": str(tmp_path / "sub"),
    }
    assert by["remote"]["transport"] == "streamable_http" and by["remote"]["headers"]["Authorization"]
    assert by["legacy"]["transport"] == "sse"
    with pytest.raises(McpConfigError, match="needs 'command'"):
        parse_servers({"bad": {"args": []}}, "test")
    with pytest.raises(McpConfigError, match="http"):
        parse_servers({"bad": {"url": "file:///etc/passwd"}}, "test")


def test_every_source_is_read_and_the_first_definition_wins(workspace, tmp_path):
    home = Path(os.environ["CAIRN_HOME"])
    (home / "mcp.json").write_text(
        json.dumps({"mcpServers": {"user_json": {"command": "u"}, "dup": {"command": "user"}}})
    )
    (home / "settings.toml").write_text('[mcp_servers.user_toml]\nurl = "http://127.0.0.1:9/mcp"\n')
    ws = Path(workspace)
    (ws / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"proj_json": {"command": "p"}, "dup": {"command": "proj"}}})
    )
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text('[mcp_servers.proj_toml]\ncommand = "pt"\nargs = ["a"]\n')
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"mcpServers": {"from_flag": {"command": "f"}}}))
    tables = load_settings(ws).mcp  # the [mcp_servers] tables of both settings files
    specs = load_server_specs(
        Workspace(ws),
        explicit={"explicit": {"command": "e"}},
        config_files=[extra],
        user_servers=tables.user_servers,
        project_servers=tables.project_servers,
    )
    by = {s.name: s for s in specs}
    assert list(by) == ["explicit", "from_flag", "user_toml", "user_json", "dup", "proj_toml", "proj_json"]
    assert by["dup"].connection["command"] == "user" and not by["dup"].project
    assert by["proj_json"].project and by["proj_toml"].project
    assert not by["explicit"].project and not by["from_flag"].project
    with pytest.raises(McpConfigError, match="no such MCP config file"):
        load_server_specs(Workspace(ws), config_files=[tmp_path / "missing.json"])


def _project(ws: Path, marks: Path, started: Path) -> None:
    entry = stdio_server(marks, "--started", str(started))
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": entry}}))


def _session(ws, **kwargs) -> Session:
    model = ScriptedChatModel.from_turns([{"content": "ok"}] * 5)
    return Session(ws, model=model, db=":memory:", defer_threshold=100, **kwargs)


@pytest.mark.slow
def test_project_servers_start_only_after_approval(workspace, marks, tmp_path):
    ws = Path(workspace)
    started = tmp_path / "started"
    _project(ws, marks, started)
    s = _session(ws)
    try:
        assert s.project_mcp_pending()[0]["name"] == "proj"
        assert s.send("hi").status == "done"
        assert not started.exists(), "a project server ran before anyone approved it"
        assert "mcp__proj__echo" not in s.core.registry
        assert s.mcp_status()[0]["status"] == "awaiting approval"
        s.approve_project_mcp()
        assert started.exists()
        assert "mcp__proj__echo" in s.core.registry
    finally:
        s.close()
    # Approved once for this workspace and config: the next session starts it directly.
    s = _session(ws)
    try:
        assert s.project_mcp_pending() == []
        assert s.mcp_status()[0]["status"] == "running"
    finally:
        s.close()
    # A changed config asks again.
    config = json.loads((ws / ".mcp.json").read_text())
    config["mcpServers"]["proj"]["args"].append("--many=1")
    (ws / ".mcp.json").write_text(json.dumps(config))
    before = started.read_text()
    s = _session(ws)
    try:
        assert [p["name"] for p in s.project_mcp_pending()] == ["proj"]
        s.send("hi")
        assert started.read_text() == before
    finally:
        s.close()


@pytest.mark.slow
def test_trust_project_mcp_starts_them_without_recording(workspace, marks, tmp_path):
    ws = Path(workspace)
    started = tmp_path / "started"
    _project(ws, marks, started)
    s = _session(ws, trust_project_mcp=True)
    try:
        assert s.mcp_status()[0]["status"] == "running"
    finally:
        s.close()
    s = _session(ws)
    try:
        assert s.project_mcp_pending(), "--trust-project-mcp must not record an approval"
    finally:
        s.close()


@pytest.mark.slow
def test_project_settings_servers_need_approval_too(workspace, marks, tmp_path):
    ws = Path(workspace)
    started = tmp_path / "started"
    (ws / ".cairn").mkdir()
    entry = stdio_server(marks, "--started", str(started))
    args = ", ".join(json.dumps(a) for a in entry["args"])
    (ws / ".cairn" / "settings.toml").write_text(
        f"[mcp_servers.tomlsrv]\ncommand = {json.dumps(entry['command'])}\nargs = [{args}]\ncwd = {json.dumps(entry['cwd'])}\n"
    )
    s = _session(ws)
    try:
        s.send("hi")
        assert not started.exists()
        assert s.project_mcp_pending()[0]["name"] == "tomlsrv"
    finally:
        s.close()
