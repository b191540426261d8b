"""PreToolUse / PermissionRequest / PostToolUse through the graph, with real hook scripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from tests.graph.conftest import effect
from tests.hooks.conftest import LOG, toml_str

pytestmark = pytest.mark.sqlite_only(
    "hook semantics do not depend on the store; the journal tests run on both"
)


def messages(s):
    return {m.tool_call_id: m for m in s.history() if isinstance(m, ToolMessage)}


def test_exit_2_blocks_the_call_with_stderr_reaching_the_model(hh):
    cmd = hh.script(
        "deny.py",
        LOG.format(marks=str(hh.marks))
        + 'sys.stderr.write("no effects on Fridays"); sys.exit(2 if data["tool_input"]["label"] == "a" else 0)\n',
    )
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "effect"\ncommand = {toml_str(cmd)}\n')
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


#: A Claude Code hook script, as people write them for it: stdin JSON in, hookSpecificOutput out.
CLAUDE_STYLE = """
import json, sys

data = json.load(sys.stdin)
label = data["tool_input"].get("label", "")
decision = {"deny": "deny", "ask": "ask", "allow": "allow"}.get(label)
out = {"hookSpecificOutput": {"hookEventName": "PreToolUse"}}
if decision:
    out["hookSpecificOutput"]["permissionDecision"] = decision
    out["hookSpecificOutput"]["permissionDecisionReason"] = f"label says {decision}"
if label == "rewrite":
    out["hookSpecificOutput"]["updatedInput"] = {"label": "rewritten"}
print(json.dumps(out))
"""


def _claude_hook(hh, where: str = "user") -> None:
    path = hh.ws / "claude_hook.py"
    path.write_text(CLAUDE_STYLE)
    table = f'[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = {toml_str("python3 " + str(path))}\n'
    (hh.user_settings if where == "user" else hh.project_settings)(table)


def test_claude_style_deny_reaches_the_model(hh):
    _claude_hook(hh)
    s = hh.session([{"tool_calls": [effect("deny")]}, {"content": "ok"}])
    assert s.send("go").status == "done"
    assert hh.runs() == []
    assert "label says deny" in messages(s)["call_deny"].content


def test_claude_style_ask_makes_a_low_call_wait_even_in_bypass(hh):
    _claude_hook(hh)
    s = hh.session([{"tool_calls": [effect("ask")]}, {"content": "ok"}], mode="bypass")
    r = s.send("go")
    assert r.status == "awaiting_approval"
    [p] = r.pending
    assert "label says ask" in p.reason
    assert s.approve().status == "done" and hh.runs() == ["ask"]


def test_user_hook_allow_lifts_an_ask(hh):
    _claude_hook(hh)
    s = hh.session([{"tool_calls": [effect("allow", "gated_effect")]}, {"content": "ok"}])
    r = s.send("go")
    assert r.status == "done" and hh.runs() == ["allow"]
    assert r.tool_calls[0].decision.startswith("allowed by hook user:")


def test_project_hook_allow_is_ignored(hh):
    from cairn.graph.core.hooks.loading import load_config
    from cairn.graph.core.hooks.trust import record_approval

    _claude_hook(hh, "project")
    config = load_config(hh.ws)
    record_approval(hh.ws, config.project_hash, "off")  # trusted; no sandbox needed for the test
    s = hh.session([{"tool_calls": [effect("allow", "gated_effect")]}, {"content": "ok"}])
    r = s.send("go")
    assert r.status == "awaiting_approval" and hh.runs() == []
    [p] = r.pending
    assert p.hooks[0]["decision"] == "allow" and "cannot allow" in p.hooks[0]["ignored"]


def test_updated_input_runs_the_new_arguments(hh):
    _claude_hook(hh)
    s = hh.session([{"tool_calls": [effect("rewrite")]}, {"content": "ok"}])
    r = s.send("go")
    assert r.status == "done" and hh.runs() == ["rewritten"]
    [call] = r.tool_calls
    assert call.arguments["label"] == "rewritten" and call.original_arguments["label"] == "rewrite"


def test_updated_input_is_judged_again_protected_paths_hold(hh):
    cmd = hh.script(
        "retarget.py",
        'json.load(sys.stdin)\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",'
        ' "permissionDecision": "allow", "updatedInput": {"file_path": ".git/hooks/pre-commit"}}}))\n',
    )
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "Write"\ncommand = {toml_str(cmd)}\n')
    (hh.ws / ".git" / "hooks").mkdir(parents=True)
    write = {"name": "write_file", "args": {"file_path": "notes.txt", "content": "x"}, "id": "call_w"}
    s = hh.session([{"tool_calls": [write]}, {"content": "ok"}], mode="bypass")
    assert s.send("go").status == "done"
    assert not (hh.ws / ".git" / "hooks" / "pre-commit").exists() and not (hh.ws / "notes.txt").exists()
    msg = messages(s)["call_w"]
    assert msg.status == "error" and "after a PreToolUse hook changed the input" in msg.content


def test_post_tool_use_gets_the_response_and_exit_2_feeds_the_model(hh):
    cmd = hh.script(
        "post.py",
        LOG.format(marks=str(hh.marks)) + 'sys.stderr.write("lint failed: fix it"); sys.exit(2)\n',
    )
    hh.user_settings(f'[[hooks.PostToolUse]]\nmatcher = "effect"\ncommand = {toml_str(cmd)}\n')
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    assert s.send("go").status == "done"
    [event] = hh.seen()
    assert event["hook_event_name"] == "PostToolUse"
    assert event["tool_response"]["status"] == "success" and event["tool_response"]["output"] == "ran a"
    msg = messages(s)["call_a"]
    assert "lint failed: fix it" in msg.content and "ran a" in msg.content
    [call] = s.tool_calls()
    assert [h["event"] for h in call.hooks] == ["PostToolUse"]


def test_a_hook_that_hangs_is_cut_at_its_timeout(hh):
    cmd = hh.script("hang.py", "time.sleep(30)\n")
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = {toml_str(cmd)}\ntimeout = 1\n')
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    r = s.send("go")
    assert r.status == "done" and hh.runs() == ["a"]  # a timeout is a non-blocking error
    [run] = r.tool_calls[0].hooks
    assert "timed out after 1s" in run["error"] and run["duration_ms"] < 10_000


def test_other_exit_codes_are_visible_but_do_not_block(hh):
    cmd = hh.script("broken.py", 'sys.stderr.write("oops"); sys.exit(1)\n')
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = {toml_str(cmd)}\n')
    events = []
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    r = s.send("go", on_event=lambda kind, payload: events.append((kind, payload)))
    assert r.status == "done" and hh.runs() == ["a"]
    [hook] = [p for k, p in events if k == "hook"]
    assert hook["error"] == "oops" and hook["exit_code"] == 1 and hook["call_id"] == "call_a"


def test_matcher_uses_aliases_and_skips_other_tools(hh):
    cmd = hh.script("log.py", LOG.format(marks=str(hh.marks)))
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "Bash|Edit"\ncommand = {toml_str(cmd)}\n')
    bash = {"name": "bash", "args": {"command": "echo hi"}, "id": "call_b"}
    s = hh.session([{"tool_calls": [effect("a"), bash]}, {"content": "ok"}], mode="bypass")
    s.send("go")
    seen = hh.seen()
    assert [e["tool_name"] for e in seen] == ["Bash"]
    assert seen[0]["cairn_tool_name"] == "bash" and seen[0]["tool_input"]["command"] == "echo hi"


def test_permission_request_hook_can_decide_a_wait(hh):
    cmd = hh.script(
        "perm.py",
        "data = json.load(sys.stdin)\n"
        'behavior = "allow" if data["tool_input"]["label"] == "ok" else "deny"\n'
        'print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",'
        ' "decision": {"behavior": behavior, "message": "by the on-call bot"}}}))\n',
    )
    hh.user_settings(f"[[hooks.PermissionRequest]]\ncommand = {toml_str(cmd)}\n")
    turns = [{"tool_calls": [effect("ok", "gated_effect"), effect("no", "gated_effect")]}, {"content": "ok"}]
    s = hh.session(turns)
    r = s.send("go")
    assert r.status == "done" and hh.runs() == ["ok"]
    assert "by the on-call bot" in messages(s)["call_no"].content


def test_python_callables_work_like_commands(hh):
    from cairn.graph.core.hooks import HookBlock

    seen = []

    def guard(event):
        seen.append(event["tool_input"]["label"])
        if event["tool_input"]["label"] == "b":
            raise HookBlock("b is not allowed")
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "checked"}}

    s = hh.session(
        [{"tool_calls": [effect("a"), effect("b")]}, {"content": "ok"}], hooks={"PreToolUse": guard}
    )
    s.send("go")
    assert seen == ["a", "b"] and hh.runs() == ["a"]
    got = messages(s)
    assert "b is not allowed" in got["call_b"].content and "checked" in got["call_a"].content


def test_no_hooks_means_no_engine(hh):
    hh.user_settings("[permissions]\nallow = []\n")
    s = hh.session([{"content": "ok"}])
    assert s.core.hooks_engine is None  # the fast path: nodes skip every hook check


RECIPES = Path(__file__).resolve().parents[2] / "docs" / "hooks"


def _recipe(event: str, matcher: str, script: str) -> str:
    """The settings table of a recipe in docs/hooks/."""
    command = toml_str(f"python3 {RECIPES / script}")
    return f'[[hooks.{event}]]\nmatcher = "{matcher}"\ncommand = {command}\n'


def test_recipe_block_generated(hh):
    hh.user_settings(_recipe("PreToolUse", "Edit|Write", "block_generated.py"))
    writes = [
        {"name": "write_file", "args": {"file_path": "generated/api.py", "content": "x = 1\n"}, "id": "w1"},
        {"name": "write_file", "args": {"file_path": "src/api.py", "content": "x = 1\n"}, "id": "w2"},
    ]
    s = hh.session([{"tool_calls": writes}, {"content": "ok"}], mode="accept-edits")
    assert s.send("go").status == "done"
    assert not (hh.ws / "generated" / "api.py").exists() and (hh.ws / "src" / "api.py").exists()
    assert "generated code: change the generator's input instead" in messages(s)["w1"].content


def test_recipe_format_after_edit(hh, monkeypatch):
    fmt = hh.script(
        "fmt.py",
        'import pathlib; p = pathlib.Path(sys.argv[1]); p.write_text(p.read_text().replace("x=1", "x = 1"))\n',
    )
    monkeypatch.setenv("FORMATTER", fmt)  # a stand-in for ruff format (not installed everywhere)
    hh.user_settings(_recipe("PostToolUse", "Edit|Write", "format_after_edit.py"))
    write = {"name": "write_file", "args": {"file_path": "mod.py", "content": "x=1\n"}, "id": "w1"}
    s = hh.session([{"tool_calls": [write]}, {"content": "ok"}], mode="accept-edits")
    assert s.send("go").status == "done"
    assert (hh.ws / "mod.py").read_text() == "x = 1\n"


def test_recipe_audit_bash(hh, monkeypatch):
    log = hh.marks / "audit.jsonl"
    monkeypatch.setenv("CAIRN_AUDIT_LOG", str(log))
    hh.user_settings(_recipe("PreToolUse", "Bash", "audit_bash.py"))
    bash = {"name": "bash", "args": {"command": "echo audited"}, "id": "b1"}
    s = hh.session([{"tool_calls": [bash, effect("a")]}, {"content": "ok"}], mode="bypass")
    assert s.send("go").status == "done"
    [entry] = [json.loads(line) for line in log.read_text().splitlines()]
    assert entry["command"] == "echo audited" and entry["session"] == s.id


def test_continue_false_refuses_the_call_and_system_message_is_shown(hh):
    cmd = hh.script(
        "stop.py",
        'json.load(sys.stdin)\nprint(json.dumps({"continue": False, "stopReason": "freeze in effect",'
        ' "systemMessage": "release freeze until Monday"}))\n',
    )
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = {toml_str(cmd)}\n')
    events = []
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    s.send("go", on_event=lambda kind, payload: events.append((kind, payload)))
    assert hh.runs() == [] and "freeze in effect" in messages(s)["call_a"].content
    from cairn.graph.core.hooks.display import hook_line

    [run] = [p for k, p in events if k == "hook"]
    assert "release freeze until Monday" in hook_line(run)


def test_hooks_get_the_secret_filtered_environment_and_bounded_output(hh, monkeypatch):
    monkeypatch.setenv("MY_SERVICE_API_KEY", "planted-fake-secret")
    monkeypatch.setenv("HOOK_VISIBLE", "plain value")
    cmd = hh.script(
        "env.py",
        "json.load(sys.stdin)\n"
        f"open(os.path.join({str(hh.marks)!r}, 'env.json'), 'w').write(json.dumps(dict(os.environ)))\n"
        'sys.stderr.write("x" * 1_000_000); sys.exit(1)\n',
    )
    hh.user_settings(f'[[hooks.PreToolUse]]\nmatcher = "*"\ncommand = {toml_str(cmd)}\n')
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    r = s.send("go")
    env = json.loads((hh.marks / "env.json").read_text())
    assert "MY_SERVICE_API_KEY" not in env and env["HOOK_VISIBLE"] == "plain value"
    assert env["CAIRN_PROJECT_DIR"] == str(hh.ws) == env["CLAUDE_PROJECT_DIR"]
    [run] = r.tool_calls[0].hooks
    assert len(run["error"]) < 5000  # 1 MB of stderr: cut at 64 KiB by the runner, 4,000 chars kept
