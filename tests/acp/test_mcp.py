"""The editor's MCP servers (``session/new`` ``mcpServers``) join the session's tools."""

from __future__ import annotations

import sys

import pytest
from acp.schema import EnvVariable, McpServerStdio

from tests.acp.client import EditorClient, agent, env_for, prompt, run
from tests.cli.conftest import REPO, call

pytestmark = [pytest.mark.usefixtures("db_location"), pytest.mark.slow]


def test_an_editor_mcp_server_gives_the_model_its_tools(cli_env, workspace, make_openai_server, tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("mcp__t__add", "m1", a=2, b=3)]},
            {"content": "It is 5."},
        ]
    )
    mcp = McpServerStdio(
        name="t",
        command=sys.executable,
        args=["-m", "tests.support.mcp_server", "--marks", str(marks)],
        env=[EnvVariable(name="PYTHONPATH", value=str(REPO))],
    )
    client = EditorClient(["allow_once"])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[mcp])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("add 2 and 3"))

    assert run(scenario()).stop_reason == "end_turn", (tmp_path / "err").read_text()
    # over 15 tools only the core set is bound; the server's tools are deferred, found by name
    last = client.calls("m1")[-1]
    assert last.status == "completed" and last.kind == "other"
    assert "5" in last.raw_output["output"]
    assert client.text() == "It is 5."
