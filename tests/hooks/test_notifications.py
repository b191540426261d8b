"""Notifications (issue 32 item 5) and the remaining events: Notification, PreCompact, SubagentStop."""

from __future__ import annotations

import io
import json
import stat
import sys
import time

import pytest

from cairn.graph.core.hooks.config import HooksConfigError
from cairn.graph.core.hooks.notify import (
    NotificationsConfig,
    TerminalNotifier,
    notice_for,
    parse_notifications,
)
from tests.graph.conftest import effect
from tests.hooks.conftest import LOG, toml_str

pytestmark = pytest.mark.sqlite_only("notifications do not depend on the store")


def test_parse_notifications_precedence_and_errors():
    config = parse_notifications(
        {"notifications": {"after_seconds": 5, "bell": False}}, {"notifications": {"bell": True}}
    )
    assert config == NotificationsConfig(after_seconds=5.0, bell=True)
    assert not config.active("headless") and config.active("interactive")
    assert parse_notifications({"notifications": {"headless": True}}, None).active("headless")
    with pytest.raises(HooksConfigError, match=r"unknown key notifications\.sound"):
        parse_notifications({"notifications": {"sound": True}}, None)
    with pytest.raises(HooksConfigError, match="after_seconds"):
        parse_notifications(None, {"notifications": {"after_seconds": -1}})


def test_notice_for_each_outcome():
    assert notice_for("awaiting_approval", 1, 2, None, 30)[0] == "permission_prompt"
    assert notice_for("error", 1, 0, "model down\nmore", 30) == ("error", "cairn run failed: model down")
    assert notice_for("done", 31, 0, None, 30) == ("done", "cairn finished after 31s")
    assert notice_for("done", 29, 0, None, 30) is None


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_notifier_writes_bell_and_osc_and_runs_notify_send(tmp_path):
    log = tmp_path / "notify-send.log"
    fake = tmp_path / "notify-send"
    fake.write_text(
        f"#!{sys.executable}\nimport json, sys\nopen({str(log)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    out = _Tty()
    notifier = TerminalNotifier(NotificationsConfig(), out, which=lambda name: str(fake))
    used = notifier.send("done", "cairn finished\x1b]0;evil\x07 after 40s")
    assert used == ["osc", "bell", "notify-send"]
    text = out.getvalue()
    assert "\x1b]9;cairn finished]0;evil after 40s\x07" in text and "\x1b]777;notify;cairn;" in text
    assert text.endswith("\a")
    for _ in range(100):
        if log.exists() and log.read_text():
            break
        time.sleep(0.05)
    assert json.loads(log.read_text())[-1] == "cairn finished]0;evil after 40s"
    quiet = TerminalNotifier(NotificationsConfig(bell=False, desktop=False, notify_send=False), _Tty())
    assert quiet.send("done", "x") == []
    assert TerminalNotifier(NotificationsConfig(notify_send=False), io.StringIO()).send("done", "x") == []


def test_waiting_for_approval_fires_the_notification_hook_and_event(hh):
    cmd = hh.script("note.py", LOG.format(marks=str(hh.marks)))
    hh.user_settings(f"[[hooks.Notification]]\ncommand = {toml_str(cmd)}\n")
    events = []
    s = hh.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "ok"}])
    r = s.send("go", on_event=lambda kind, payload: events.append((kind, payload)))
    assert r.status == "awaiting_approval"
    [seen] = hh.seen()
    assert seen["hook_event_name"] == "Notification" and seen["notification_type"] == "permission_prompt"
    assert "waiting for your approval (1 call(s))" in seen["message"]
    assert [p["notification_type"] for k, p in events if k == "notification"] == ["permission_prompt"]


def test_headless_runs_do_not_notify_unless_asked(hh):
    cmd = hh.script("note.py", LOG.format(marks=str(hh.marks)))
    hh.user_settings(f"[[hooks.Notification]]\ncommand = {toml_str(cmd)}\n")
    s = hh.session([{"tool_calls": [effect("g", "gated_effect")]}, {"content": "ok"}])
    s.core.surface = "headless"
    assert s.send("go").status == "awaiting_approval"
    assert hh.seen() == []
    hh.user_settings(f"[notifications]\nheadless = true\n[[hooks.Notification]]\ncommand = {toml_str(cmd)}\n")
    s2 = hh.session([{"tool_calls": [effect("h", "gated_effect")]}, {"content": "ok"}])
    s2.surface = "headless"
    s2.send("go")
    assert [e["notification_type"] for e in hh.seen()] == ["permission_prompt"]


def test_notebook_stream_shows_a_badge_line():
    from cairn.graph.apps.notebook.stream import CellStream

    out = io.StringIO()
    stream = CellStream(rich=False, file=out)
    stream("notification", {"notification_type": "permission_prompt", "message": "cairn is waiting"})
    stream("hook", {"event": "PreToolUse", "hook": "user:check", "decision": "deny", "reason": "no"})
    assert out.getvalue().splitlines() == [
        "[notification] cairn is waiting",
        "(hook PreToolUse user:check: deny (no))",
    ]


def test_pre_compact_fires_with_its_trigger(hh):
    cmd = hh.script("pc.py", LOG.format(marks=str(hh.marks)) + 'print("ticket CAIRN-7")\n')
    hh.user_settings(
        f"[[hooks.PreCompact]]\ncommand = {toml_str(cmd)}\n"
        f'[[hooks.SessionStart]]\nmatcher = "compact"\ncommand = {toml_str(cmd)}\n'
    )
    s = hh.session([{"content": "one"}, {"content": "two"}, {"content": "summary of the talk"}])
    s.send("first")
    s.send("second")
    info = s.compact("keep the names")
    assert not info.get("skipped"), info
    seen, after = hh.seen()  # the first send's SessionStart ("startup") did not match "compact"
    assert seen["hook_event_name"] == "PreCompact" and seen["trigger"] == "manual"
    assert seen["custom_instructions"] == "keep the names"
    assert after["hook_event_name"] == "SessionStart" and after["source"] == "compact"
    assert "ticket CAIRN-7" in info["summary"]  # its context lives on in the summary


def test_subagent_stop_fires_at_the_parent_and_not_stop(hh):
    from cairn import Session
    from tests.graph.test_subagent import TwoAgentModel

    (hh.ws / "lib").mkdir()
    (hh.ws / "lib" / "code.py").write_text("def target():\n    pass\n")
    cmd = hh.script("sub.py", LOG.format(marks=str(hh.marks)))
    hh.user_settings(
        f"[[hooks.SubagentStop]]\ncommand = {toml_str(cmd)}\n[[hooks.Stop]]\ncommand = {toml_str(cmd)}\n"
    )
    s = Session(hh.ws, model=TwoAgentModel(), db=hh.db)
    hh.opened.append(s)
    assert s.send("where is target?").status == "awaiting_approval"  # the agent call asks first
    assert s.approve().status == "done"
    seen = hh.seen()
    assert [e["hook_event_name"] for e in seen] == ["SubagentStop", "Stop"]  # the child's run fires no Stop
    assert seen[0]["status"] == "done" and "lib/code.py" in seen[0]["last_assistant_message"]
    assert seen[1]["session_id"] == s.id
