"""A prompt through ``cairn acp``: streamed text, tool calls with kinds/locations/diffs, approvals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acp.client import EditorClient, agent, env_for, prompt, run
from tests.cli.conftest import call

pytestmark = [pytest.mark.usefixtures("db_location"), pytest.mark.slow]


@pytest.mark.smoke
def test_read_edit_run_streams_in_order_and_ends_the_turn(cli_env, workspace, make_openai_server, tmp_path):
    Path(workspace, "app.py").write_text("x = 1\n")
    server = make_openai_server(
        [
            {"content": "Let me look.", "tool_calls": [call("read_file", "r1", file_path="app.py")]},
            {
                "content": "",
                "tool_calls": [
                    call("edit_file", "e1", file_path="app.py", old_string="x = 1", new_string="x = 2")
                ],
            },
            {"content": "", "tool_calls": [call("bash", "b1", command="touch made.txt && echo ran-it")]},
            {"content": "Done: x is 2 now."},
        ]
    )
    client = EditorClient(["allow_once", "allow_once"])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            assert conn.init.agent_capabilities.load_session is True
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            assert [m.id for m in new.modes.available_modes] == ["default", "accept-edits", "plan", "bypass"]
            return await conn.prompt(session_id=new.session_id, prompt=prompt("make x two"))

    response = run(scenario())
    assert response.stop_reason == "end_turn", (tmp_path / "err").read_text()
    assert Path(workspace, "app.py").read_text() == "x = 2\n"
    assert client.text() == "Let me look.Done: x is 2 now."
    # the read: one card, kind read, the file as location, completed
    reads = client.calls("r1")
    assert reads[0].session_update == "tool_call" and reads[0].kind == "read"
    assert reads[0].locations[0].path == str(Path(workspace, "app.py"))
    assert reads[-1].status == "completed"
    # the edit: asked with the diff as content, then completed with the diff
    [asked_edit, asked_bash] = client.asked
    assert asked_edit["call"].tool_call_id == "e1"
    assert ("allow_always", "allow_always") in {(o[0], o[1]) for o in asked_edit["options"]}
    [diff] = [c for c in asked_edit["call"].content if c.type == "diff"]
    assert (diff.old_text, diff.new_text) == ("x = 1\n", "x = 2\n")
    edits = client.calls("e1")
    assert edits[-1].status == "completed" and edits[-1].kind == "edit"
    assert any(c.type == "diff" and c.new_text == "x = 2\n" for c in edits[-1].content)
    # the command: execute, "allow without sandbox" offered, its output in the card
    assert "allow_without_sandbox" in [o[0] for o in asked_bash["options"]]
    runs = client.calls("b1")
    assert runs[0].kind == "execute" and runs[-1].status == "completed"
    assert "ran-it" in str(runs[-1].raw_output)
    # in order: the text before the read, the read, the edit, the command, the answer
    order = [
        u.tool_call_id if hasattr(u, "tool_call_id") else u.content.text
        for u in client.updates
        if u.session_update in ("tool_call", "agent_message_chunk")
    ]
    firsts = [x for i, x in enumerate(order) if x not in order[:i] or x in ("r1", "e1", "b1")]
    assert firsts.index("r1") < firsts.index("e1") < firsts.index("b1")
    assert "".join(order[: order.index("r1")]) == "Let me look."
    assert (
        "".join(x for x in order[order.index("b1") :] if x not in ("r1", "e1", "b1")) == "Done: x is 2 now."
    )


def test_reasoning_streams_as_thought_chunks_before_the_answer(
    cli_env, workspace, make_openai_server, tmp_path
):
    server = make_openai_server(
        [{"reasoning": "The user asks for a greeting, so greet.", "content": "Hello there."}]
    )
    client = EditorClient([])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("say hello"))

    response = run(scenario())
    assert response.stop_reason == "end_turn", (tmp_path / "err").read_text()
    assert client.text("agent_thought_chunk") == "The user asks for a greeting, so greet."
    assert client.text() == "Hello there."
    kinds = [k for k in client.kinds() if k in ("agent_thought_chunk", "agent_message_chunk")]
    assert kinds.index("agent_message_chunk") > max(
        i for i, k in enumerate(kinds) if k == "agent_thought_chunk"
    )
