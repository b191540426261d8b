"""The pure parts of ``cairn acp``: events → updates, permission options and answers, prompt
content, MCP servers, stop reasons, and ``cairn acp --help``."""

from __future__ import annotations

import base64
from pathlib import Path

from acp import image_block, resource_block, resource_link_block, text_block
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
    RequestPermissionResponse,
    TextResourceContents,
)

from cairn.graph.apps.acp import permissions
from cairn.graph.apps.acp.prompt_blocks import prompt_text
from cairn.graph.apps.acp.session_config import mcp_servers_config
from cairn.graph.apps.acp.updates import CallView, stop_reason, translate
from cairn.graph.apps.cli import main
from cairn.graph.core import events as ev


def test_first_sight_of_a_call_is_a_tool_call_then_updates(tmp_path):
    view = CallView(tmp_path)
    call = {
        "call_id": "c1",
        "tool_name": "grep",
        "arguments": {"pattern": "TODO", "path": "src"},
        "status": "executing",
    }
    [start] = translate(ev.ToolStart(call), view)
    assert (start.session_update, start.kind, start.status) == ("tool_call", "search", "in_progress")
    assert start.locations[0].path == str(tmp_path / "src")
    [progress] = translate(ev.ToolProgress("c1", "a.py:1: TODO"), view)
    assert (
        progress.session_update == "tool_call_update" and progress.content[0].content.text == "a.py:1: TODO"
    )
    done = {**call, "status": "error", "error_msg": "bad regex"}
    [end] = translate(ev.ToolEnd(done), view)
    assert (end.session_update, end.status, end.field_meta["cairn"]["status"]) == (
        "tool_call_update",
        "failed",
        "error",
    )
    assert end.content[0].content.text == "bad regex"


def test_statuses_map_to_acp_and_cancelled_carries_the_reason(tmp_path):
    view = CallView(tmp_path)
    denied = {
        "call_id": "d",
        "tool_name": "bash",
        "arguments": {"command": "x"},
        "status": "cancelled",
        "reason": "denied by rule",
    }
    [update] = translate(ev.ToolEnd(denied), view)
    assert update.status == "failed" and "denied by rule" in update.content[0].content.text
    interrupted = {
        "call_id": "i",
        "tool_name": "bash",
        "arguments": {"command": "x"},
        "status": "interrupted",
    }
    [update] = translate(ev.ToolEnd(interrupted), view)
    assert update.status == "pending" and update.field_meta["cairn"]["status"] == "interrupted"


def test_tokens_and_task_lists(tmp_path):
    view = CallView(tmp_path)
    [chunk] = translate(ev.Token("hi"), view)
    assert chunk.session_update == "agent_message_chunk" and chunk.content.text == "hi"
    assert translate(ev.Token(""), view) == []
    assert translate(ev.Message("hi", 0, []), view) == []
    tasks = [
        {"content": "a", "status": "done"},
        {"content": "b", "status": "in_progress"},
        {"content": "c", "status": "pending"},
    ]
    call = {
        "call_id": "t",
        "tool_name": "todo_write",
        "status": "success",
        "metadata": {"state": {"tasks": tasks}},
    }
    [_, plan] = translate(ev.ToolEnd(call), view)
    assert [(e.content, e.status) for e in plan.entries] == [
        ("a", "completed"),
        ("b", "in_progress"),
        ("c", "pending"),
    ]


def test_permission_options_and_answers(tmp_path):
    bash = {
        "call_id": "b",
        "tool_name": "bash",
        "arguments": {"command": "pytest -q"},
        "status": "awaiting_approval",
    }
    offered = permissions.options(bash, tmp_path)
    ids = [o.option_id for o in offered]
    assert ids == ["allow_once", "allow_always", "allow_without_sandbox", "reject_once"]
    always = offered[1]
    assert always.name == f"Always allow: {always.field_meta['cairn']['rule']}" and "pytest" in always.name
    read = {
        "call_id": "r",
        "tool_name": "write_file",
        "arguments": {"file_path": "a.txt"},
        "status": "awaiting_approval",
    }
    assert "allow_without_sandbox" not in [o.option_id for o in permissions.options(read, tmp_path)]
    stuck = {**bash, "status": "interrupted"}
    assert [o.option_id for o in permissions.options(stuck, tmp_path)] == ["retry", "cancel_call"]

    def answer(option: str, **meta) -> RequestPermissionResponse:
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option), **meta)

    assert permissions.decision(answer("allow_once")) == {"action": "approve"}
    assert permissions.decision(answer("allow_always")) == {"action": "always"}
    assert permissions.decision(answer("allow_without_sandbox")) == {"action": "approve", "sandbox": "off"}
    assert permissions.decision(answer("retry")) == {"action": "retry"}
    assert permissions.decision(answer("cancel_call")) == {"action": "cancel"}
    said = permissions.decision(answer("reject_once", field_meta={"cairn": {"message": "use pathlib"}}))
    assert said == {"action": "reject", "message": "use pathlib"}
    assert "rejected" in permissions.decision(answer("reject_once"))["message"]
    assert permissions.decision(RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))) is None


def test_prompt_blocks_become_text(tmp_path):
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    blocks = [
        text_block("fix it"),
        resource_link_block("app.py", "file:///w/app%20x.py"),
        resource_block(TextResourceContents(uri="file:///w/b.py", text="print(1)")),
        image_block(png, "image/png"),
    ]
    text = prompt_text(blocks, tmp_path / "images")
    [stored] = list((tmp_path / "images").iterdir())
    assert stored.read_bytes() == base64.b64decode(png)
    assert text.split("\n\n") == [
        "fix it",
        "[@app.py](/w/app x.py)",
        '<context uri="/w/b.py">\nprint(1)\n</context>',
        f"[attached image: {stored} (open it with read_file)]",
    ]


def test_editor_mcp_servers_become_cairn_entries():
    servers = [
        McpServerStdio(name="files", command="/bin/srv", args=["-v"], env=[EnvVariable(name="K", value="v")]),
        HttpMcpServer(
            type="http", name="web", url="http://127.0.0.1:9/mcp", headers=[HttpHeader(name="A", value="b")]
        ),
    ]
    assert mcp_servers_config(servers) == {
        "files": {"command": "/bin/srv", "args": ["-v"], "env": {"K": "v"}},
        "web": {"url": "http://127.0.0.1:9/mcp", "type": "http", "headers": {"A": "b"}},
    }


def test_stop_reasons():
    assert [
        stop_reason(s) for s in ("done", "incomplete", "max_steps", "loop", "no_answer", "interrupted")
    ] == [
        "end_turn",
        "max_tokens",
        "max_turn_requests",
        "max_turn_requests",
        "refusal",
        "cancelled",
    ]
    assert stop_reason("done", cancelled=True) == "cancelled"


def test_help_says_how_to_add_cairn_to_zed(capsys):
    assert main(["acp", "--help"]) == 0
    out = capsys.readouterr().out
    assert '"agent_servers"' in out and '"args": ["acp"]' in out and "docs/editors.md" in out


def test_module_names_stay_clear_of_the_standard_library():
    import sys

    names = {p.stem for p in Path(__file__).resolve().parents[2].joinpath("graph", "acp").glob("*.py")}
    assert not names & set(sys.stdlib_module_names)
