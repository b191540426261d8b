"""``session/load``: replaying a CLI-made session, and resuming after ``cairn acp`` was killed
(SIGKILL) mid-approval and mid-tool: the call is offered again, nothing runs twice."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from tests.acp.client import EditorClient, agent, env_for, prompt, run
from tests.cli.conftest import cairn_cmd, call

pytestmark = [pytest.mark.usefixtures("db_location"), pytest.mark.slow]


async def until(predicate, timeout: float = 60) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_load_replays_a_session_made_by_the_cli(cli_env, workspace, make_openai_server, tmp_path):
    Path(workspace, "a.txt").write_text("alpha\n")
    server = make_openai_server(
        [
            {"content": "Reading.", "tool_calls": [call("read_file", "r1", file_path="a.txt")]},
            {"content": "It says alpha."},
            {"content": "Still alpha."},
        ]
    )
    env = env_for(cli_env, server)
    done = subprocess.run(
        [*cairn_cmd(), "-p", "what is in a.txt?", "--output-format", "json"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    session_id = json.loads(done.stdout.strip().splitlines()[-1])["session_id"]
    client = EditorClient([])

    async def scenario():
        async with agent(client, env, workspace, stderr_path=tmp_path / "err") as (conn, _):
            short = session_id[:12]  # the id `cairn sessions` shows; a prefix works, as for `cairn resume`
            await conn.load_session(cwd=workspace, session_id=short, mcp_servers=[])
            replayed = list(client.updates)
            answer = await conn.prompt(session_id=short, prompt=prompt("and now?"))
            return replayed, answer

    replayed, answer = run(scenario())
    kinds = [u.session_update for u in replayed]
    assert kinds == ["user_message_chunk", "agent_message_chunk", "tool_call", "agent_message_chunk"]
    assert replayed[0].content.text == "what is in a.txt?"
    assert replayed[2].tool_call_id == "r1" and replayed[2].status == "completed"
    assert replayed[3].content.text == "It says alpha."
    assert answer.stop_reason == "end_turn"
    assert client.text().endswith("Still alpha.")
    assert len(server.requests[-1]["messages"]) > 4  # the continued conversation, not a new one


def marker_script(command: str) -> list[dict]:
    return [
        {"content": "", "tool_calls": [call("bash", "b1", command=command)]},
        {"content": "All done."},
    ]


@pytest.mark.smoke
def test_killed_mid_approval_asks_again_after_load_and_runs_once(
    cli_env, workspace, make_openai_server, tmp_path
):
    server = make_openai_server(marker_script("echo once >> marker.txt"))
    env = env_for(cli_env, server)
    first = EditorClient([])
    first.hold = asyncio.Event()  # never answered: the process dies while the editor decides

    async def scenario():
        async with agent(first, env, workspace, stderr_path=tmp_path / "err") as (conn, proc):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=prompt("mark it")))
            await asyncio.wait_for(first.permission_asked.wait(), 60)
            proc.kill()
            await proc.wait()
            turn.cancel()
            sid = new.session_id
        second = EditorClient(["allow_once"])
        async with agent(second, env, workspace, stderr_path=tmp_path / "err") as (conn, _):
            await conn.load_session(cwd=workspace, session_id=sid, mcp_servers=[])
            await until(lambda: "All done." in second.text())
        return second

    second = run(scenario())
    assert [a["call"].tool_call_id for a in second.asked] == ["b1"]
    assert "allow_once" in [o[0] for o in second.asked[0]["options"]]
    assert Path(workspace, "marker.txt").read_text() == "once\n"
    assert second.calls("b1")[-1].status == "completed"


def test_killed_mid_tool_offers_retry_or_cancel_and_runs_nothing_twice(
    cli_env, workspace, make_openai_server, tmp_path
):
    server = make_openai_server(marker_script("echo once >> marker.txt && sleep 20"))
    env = env_for(cli_env, server)
    first = EditorClient(["allow_once"])

    async def scenario():
        async with agent(first, env, workspace, stderr_path=tmp_path / "err") as (conn, proc):
            new = await conn.new_session(cwd=workspace, mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=prompt("mark it")))
            await asyncio.wait_for(first.tool_running.wait(), 60)
            await until(lambda: Path(workspace, "marker.txt").exists())
            proc.kill()
            await proc.wait()
            turn.cancel()
            sid = new.session_id
        second = EditorClient(["cancel_call"])
        async with agent(second, env, workspace, stderr_path=tmp_path / "err") as (conn, _):
            await conn.load_session(cwd=workspace, session_id=sid, mcp_servers=[])
            await until(lambda: "All done." in second.text())
        return second

    second = run(scenario())
    [asked] = second.asked
    assert asked["call"].tool_call_id == "b1"
    assert [o[0] for o in asked["options"]] == ["retry", "cancel_call"]
    assert asked["call"].field_meta["cairn"]["status"] == "interrupted"
    assert Path(workspace, "marker.txt").read_text() == "once\n"
    assert second.calls("b1")[-1].status == "failed"
