"""UserPromptSubmit, SessionStart, Stop, SessionEnd and project-hook trust, with real scripts."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.graph.conftest import effect
from tests.hooks.conftest import LOG, toml_str

pytestmark = pytest.mark.sqlite_only(
    "hook semantics do not depend on the store; the journal tests run on both"
)


def _hook(hh, event: str, name: str, body: str, *, where: str = "user") -> None:
    cmd = hh.script(name, LOG.format(marks=str(hh.marks)) + body)
    table = f"[[hooks.{event}]]\ncommand = {toml_str(cmd)}\n"
    (hh.user_settings if where == "user" else hh.project_settings)(table)


def test_user_prompt_submit_exit_2_blocks_the_prompt(hh):
    _hook(hh, "UserPromptSubmit", "ups.py", 'sys.stderr.write("no secrets in prompts"); sys.exit(2)\n')
    s = hh.session([{"content": "never sent"}])
    r = s.send("my password is hunter2")
    assert r.status == "error" and "no secrets in prompts" in r.error
    assert s.history() == []  # the prompt was not stored, nor sent
    [event] = hh.seen()
    assert event["hook_event_name"] == "UserPromptSubmit" and event["prompt"] == "my password is hunter2"


def test_user_prompt_submit_stdout_is_added_as_context(hh):
    _hook(hh, "UserPromptSubmit", "ups.py", 'print("current ticket: CAIRN-42")\n')
    s = hh.session([{"content": "ok"}])
    assert s.send("fix it").status == "done"
    first = s.history()[0].content
    assert first.startswith("fix it") and "current ticket: CAIRN-42" in first


def test_prompt_hooks_reach_an_old_style_callback(hh):
    """A ``(kind, payload)`` callback gets the hook lines of SessionStart and UserPromptSubmit
    too (they fire before the run adapts its callback)."""
    _hook(hh, "UserPromptSubmit", "ups.py", 'print("current ticket: CAIRN-42")\n')
    s = hh.session([{"content": "ok"}])
    seen: list[tuple[str, dict]] = []
    assert s.send("fix it", on_event=lambda kind, payload: seen.append((kind, payload))).status == "done"
    hooks = [payload for kind, payload in seen if kind == "hook"]
    assert [h["event"] for h in hooks] == ["UserPromptSubmit"]
    assert [kind for kind, _ in seen][-1] == "message"


def test_session_start_fires_once_with_its_source(hh):
    _hook(hh, "SessionStart", "start.py", 'print("branch: main")\n')
    s = hh.session([{"content": "one"}, {"content": "two"}, {"content": "three"}])
    s.send("a")
    s.send("b")
    seen = hh.seen()
    assert [e["source"] for e in seen] == ["startup"]
    assert "branch: main" in s.history()[0].content
    s.close()
    again = type(s).resume(s.id, db=hh.db, model=s.model, tools=hh.tools())
    hh.opened.append(again)
    again.send("c")
    assert [e["source"] for e in hh.seen()] == ["startup", "resume"]


def test_stop_exit_2_continues_the_run_bounded(hh):
    _hook(
        hh,
        "Stop",
        "stop.py",
        'if not data["stop_hook_active"]:\n    sys.stderr.write("tests still fail: run them"); sys.exit(2)\n',
    )
    s = hh.session([{"content": "first answer"}, {"content": "second answer"}])
    r = s.send("go")
    assert r.status == "done" and r.text == "second answer"
    texts = [m.content for m in s.history()]
    assert "[Stop hook] tests still fail: run them" in texts
    assert [e["stop_hook_active"] for e in hh.seen()] == [False, True]


def test_a_stop_hook_that_always_blocks_is_bounded(hh):
    from cairn.graph.session.hooks_run import MAX_STOP_ROUNDS

    _hook(hh, "Stop", "stop.py", 'sys.stderr.write("again"); sys.exit(2)\n')
    s = hh.session([{"content": f"answer {i}"} for i in range(10)])
    r = s.send("go")
    assert r.status == "done"
    assert len(hh.seen()) == MAX_STOP_ROUNDS + 1


def test_session_end_fires_on_close(hh):
    _hook(hh, "SessionEnd", "end.py", "")
    s = hh.session([{"content": "ok"}])
    s.send("go")
    s.close()
    assert [e["hook_event_name"] for e in hh.seen()] == ["SessionEnd"]


def test_project_hooks_are_held_until_trusted(hh):
    from cairn.graph.core.hooks.trust import record_approval

    _hook(hh, "PreToolUse", "proj.py", "", where="project")
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    s.send("go")
    assert hh.seen() == [] and hh.runs() == ["a"]
    assert s.core.hooks_engine.held and s.core.hooks_engine.project_profile is None
    record_approval(hh.ws, s.core.hooks_engine.config.project_hash, "off")
    s2 = hh.session([{"tool_calls": [effect("b")]}, {"content": "ok"}])
    s2.send("go")
    assert [e["tool_input"]["label"] for e in hh.seen()] == ["b"]
    # Any change to the project's hooks asks again.
    _hook(hh, "PreToolUse", "proj2.py", "", where="project")
    s3 = hh.session([{"content": "ok"}])
    assert s3.core.hooks_engine.project_profile is None


@pytest.fixture
def place():
    """A workspace and an "outside" directory under /var/tmp (the sandbox's /tmp is private)."""
    base = Path(os.path.realpath(tempfile.mkdtemp(prefix="cairn-hooks-sbx-", dir="/var/tmp")))
    (base / "ws" / "sub").mkdir(parents=True)  # writes go to sub/: Landlock cannot allow the root
    (base / "outside").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


PROBE = """
import json, sys
json.load(sys.stdin)
open("sub/inside.txt", "w").write("x")
try:
    open(sys.argv[1], "w").write("x")
except OSError:
    pass
"""


def test_trusted_project_hooks_run_in_the_workspace_write_sandbox(place):
    from cairn import Session
    from cairn.graph.models.scripted import ScriptedChatModel

    (place / "ws" / "probe.py").write_text(PROBE)
    command = f"python3 probe.py {place / 'outside' / 'marker'}"
    (place / "ws" / ".cairn").mkdir()
    (place / "ws" / ".cairn" / "settings.toml").write_text(
        f"[[hooks.SessionEnd]]\ncommand = {toml_str(command)}\n"
    )
    model = ScriptedChatModel.from_turns([{"content": "ok"}])
    held = Session(place / "ws", model=model, db=":memory:")
    assert held.core.hooks_engine.project_profile is None  # not trusted: held
    held.close()
    assert not (place / "ws" / "sub" / "inside.txt").exists()
    s = Session(place / "ws", model=model, db=":memory:", trust_project_hooks=True)
    assert s.core.hooks_engine.project_profile == "workspace-write"
    s.close()
    if s.core.sandbox.state != "on":
        assert not (place / "ws" / "sub" / "inside.txt").exists()  # needs a sandbox: not run
        return
    assert (place / "ws" / "sub" / "inside.txt").exists()  # the workspace is writable
    assert not (place / "outside" / "marker").exists()  # outside it is not


def test_deleting_a_session_drops_its_hook_journal(hh):
    from cairn.graph.core.hooks.tool_hooks import hook_journal

    cmd = hh.script("pre.py", "json.load(sys.stdin)\n")
    hh.user_settings(f"[[hooks.PreToolUse]]\ncommand = {toml_str(cmd)}\n")
    s = hh.session([{"tool_calls": [effect("a")]}, {"content": "ok"}])
    s.send("go")
    journal = hook_journal(s.store)
    [entry] = journal.entries(s.id)
    assert entry["event"] == "PreToolUse" and entry["status"] == "done" and entry["call_id"] == "call_a"
    s.store.delete_thread(s.id)
    assert journal.entries(s.id) == []
