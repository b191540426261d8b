"""Rejecting with a message, cancelling mid-tool, and plan mode through ``cairn acp``."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from acp.schema import AllowedOutcome, RequestPermissionResponse

from tests.acp.client import EditorClient, agent, env_for, prompt, run
from tests.cli.conftest import call

pytestmark = [pytest.mark.usefixtures("db_location"), pytest.mark.slow]


def tool_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


def test_reject_with_a_message_reaches_the_model(cli_env, workspace, make_openai_server, tmp_path):
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("write_file", "w1", file_path="notes.txt", content="x")]},
            {"content": "OK, notes.md then."},
        ]
    )
    reject = RequestPermissionResponse(
        outcome=AllowedOutcome(outcome="selected", option_id="reject_once"),
        field_meta={"cairn": {"message": "use notes.md instead"}},
    )
    client = EditorClient([reject])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("write notes"))

    assert run(scenario()).stop_reason == "end_turn"
    assert not Path(workspace, "notes.txt").exists()
    [msg] = tool_messages(server.requests[-1])
    assert "use notes.md instead" in msg["content"]
    last = client.calls("w1")[-1]
    assert last.status == "failed" and last.field_meta["cairn"]["status"] == "cancelled"
    assert client.text() == "OK, notes.md then."


def test_cancel_mid_tool_stops_the_command(cli_env, workspace, make_openai_server, tmp_path):
    server = make_openai_server(
        [
            {
                "content": "",
                "tool_calls": [call("bash", "b1", command="touch started && sleep 30 && touch finished")],
            },
            {"content": "never asked"},
        ]
    )
    client = EditorClient(["allow_once"])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=prompt("run it")))
            await asyncio.wait_for(client.tool_running.wait(), 60)
            await asyncio.sleep(0.5)
            began = time.monotonic()
            await conn.cancel(session_id=new.session_id)
            response = await asyncio.wait_for(turn, 30)
            return response, time.monotonic() - began

    response, took = run(scenario())
    assert response.stop_reason == "cancelled"
    assert took < 15
    assert Path(workspace, "started").exists() and not Path(workspace, "finished").exists()
    assert len(server.requests) == 1  # the model was not asked again


def test_plan_mode_refuses_a_write(cli_env, workspace, make_openai_server, tmp_path):
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("write_file", "w1", file_path="plan.txt", content="x")]},
            {"content": "I will only plan."},
        ]
    )
    client = EditorClient([])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
            return await conn.prompt(session_id=new.session_id, prompt=prompt("write a plan file"))

    assert run(scenario()).stop_reason == "end_turn"
    assert not Path(workspace, "plan.txt").exists()
    assert client.asked == []
    assert [u.current_mode_id for u in client.updates if u.session_update == "current_mode_update"] == [
        "plan"
    ]
    last = client.calls("w1")[-1]
    assert last.status == "failed"
    assert client.text() == "I will only plan."


def test_a_cancelled_permission_request_is_asked_again_at_the_next_prompt(
    cli_env, workspace, make_openai_server, tmp_path
):
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("write_file", "w1", file_path="out.txt", content="x")]},
            {"content": "Written."},
            {"content": "Nothing else."},
        ]
    )
    client = EditorClient(["cancel", "allow_once"])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            first = await conn.prompt(session_id=new.session_id, prompt=prompt("write it"))
            written = Path(workspace, "out.txt").exists()
            second = await conn.prompt(session_id=new.session_id, prompt=prompt("go on"))
            return first.stop_reason, written, second.stop_reason

    assert run(scenario()) == ("cancelled", False, "end_turn")
    assert [a["call"].tool_call_id for a in client.asked] == ["w1", "w1"]
    assert Path(workspace, "out.txt").read_text() == "x"
    assert client.text() == "Written.Nothing else."
    last_user = [m for m in server.requests[-1]["messages"] if m["role"] == "user"][-1]
    assert "go on" in str(last_user["content"])


def test_a_denied_call_arrives_as_failed_with_the_reason(cli_env, workspace, make_openai_server, tmp_path):
    Path(cli_env["CAIRN_HOME"], "settings.toml").write_text('[permissions]\ndeny = ["bash(touch:*)"]\n')
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("bash", "b1", command="touch denied.txt")]},
            {"content": "It was denied."},
        ]
    )
    client = EditorClient([])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("touch it"))

    assert run(scenario()).stop_reason == "end_turn"
    assert client.asked == [] and not Path(workspace, "denied.txt").exists()
    [update] = client.calls("b1")
    assert update.status == "failed" and update.field_meta["cairn"]["status"] == "cancelled"
    assert "touch" in update.content[0].content.text
    assert update.kind == "execute"


def test_allow_always_adds_the_rule_it_names(cli_env, workspace, make_openai_server, tmp_path):
    server = make_openai_server(
        [
            {"content": "", "tool_calls": [call("bash", "b1", command="touch one.txt")]},
            {"content": "", "tool_calls": [call("bash", "b2", command="touch two.txt")]},
            {"content": "Both made."},
        ]
    )
    client = EditorClient(["allow_always"])

    async def scenario():
        async with agent(client, env_for(cli_env, server), workspace, stderr_path=tmp_path / "err") as (
            conn,
            _,
        ):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=prompt("make two files"))

    assert run(scenario()).stop_reason == "end_turn"
    [asked] = client.asked  # the second command ran under the rule, without asking
    [always] = [o for o in asked["options"] if o[0] == "allow_always"]
    assert always[2] == "Always allow: bash(touch:*)"
    assert Path(workspace, "one.txt").exists() and Path(workspace, "two.txt").exists()
    assert client.calls("b2")[-1].status == "completed"
