"""A client that offers ``fs/read_text_file``/``fs/write_text_file``: the file tools use its
buffers (unsaved changes included); the disk is left to the editor.  (A client without the
capability: tests/acp/test_prompt.py, where the edit lands on disk.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.client import EditorClient, agent, env_for, prompt, run
from tests.cli.conftest import call

pytestmark = [pytest.mark.usefixtures("db_location"), pytest.mark.slow]


def test_reads_and_edits_go_through_the_editors_buffers(cli_env, workspace, make_openai_server, tmp_path):
    path = str(Path(workspace, "app.py"))
    Path(path).write_text("x = 1\n")
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("read_file", "r1", file_path="app.py")]},
            {
                "content": "",
                "tool_calls": [
                    call("edit_file", "e1", file_path="app.py", old_string="x = 1", new_string="x = 2")
                ],
            },
            {"content": "Edited."},
        ]
    )
    client = EditorClient(["allow_once"], fs=True)
    client.buffers[path] = "x = 1  # unsaved\n"

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("make x two"))

    assert run(scenario()).stop_reason == "end_turn", (tmp_path / "err").read_text()
    read_result = next(m for m in server.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert "x = 1  # unsaved" in read_result
    assert path in client.fs_reads
    assert client.fs_writes == [(path, "x = 2  # unsaved\n")]
    assert Path(path).read_text() == "x = 1\n"  # the editor saves when it will, not cairn
