"""PreToolUse / PermissionRequest / PostToolUse through the graph, with real hook scripts."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage

from tests.graph.conftest import effect
from tests.hooks.conftest import LOG, toml_str

pytestmark = pytest.mark.sqlite_only("hook semantics do not depend on the store; the journal tests run on both")


def messages(s):
    return {m.tool_call_id: m for m in s.history() if isinstance(m, ToolMessage)}


def test_exit_2_blocks_the_call_with_stderr_reaching_the_model(hh):
    cmd = hh.script(
        "deny.py",
        LOG.format(marks=str(hh.marks))
        + 'sys.stderr.write("no effects on Fridays"); sys.exit(2 if data["tool_input"]["label"] == "a" else 0)\n',
    )
    hh.user_settings(f"[[hooks.PreToolUse]]\nmatcher = \"effect\"\ncommand = {toml_str(cmd)}\n")
    s = hh.session([{"tool_calls": [effect("a"), effect("b")]}, {"content": "ok"}])
    r = s.send("go")
    assert r.status == "done"
    assert hh.runs() == ["b"]
    msg = messages(s)["call_a"]
    assert msg.status == "error" and "no effects on Fridays" in msg.content
    seen = hh.seen()
    assert [e["tool_input"]["label"] for e in seen] == ["a", "b"]
    first = seen[0]
    assert first["hook_event_name"] == "PreToolUse" and first["tool_name"] == "effect"
    assert first["session_id"] == s.id and first["cwd"] == str(hh.ws) and first["tool_use_id"] == "call_a"
    [call_a] = [c for c in s.tool_calls() if c.call_id == "call_a"]
    assert call_a.status == "cancelled"
    assert call_a.hooks[0]["decision"] == "deny" and call_a.hooks[0]["exit_code"] == 2
