"""``/hooks`` and the interactive question about a project's hooks (with a stand-in prompter)."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from cairn.graph.apps.cli.commands.hooks import ask_project_hooks, attach_notifier, show_hooks
from tests.hooks.conftest import LOG, toml_str

pytestmark = pytest.mark.sqlite_only("the CLI's hook handling does not depend on the store")


class _Prompter:
    tty = True

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[str] = []

    def key(self, prompt, keys: str) -> str:
        self.asked.append(str(prompt))
        assert self.answer in keys
        return self.answer


def _repl(session, answer: str = "n"):
    out = io.StringIO()
    return SimpleNamespace(
        session=session, console=Console(file=out, width=200), prompter=_Prompter(answer)
    ), out


def test_slash_hooks_lists_sources_and_trust(hh):
    cmd = hh.script("h.py", LOG.format(marks=str(hh.marks)))
    hh.user_settings(f'[[hooks.PostToolUse]]\nmatcher = "Edit"\ncommand = {toml_str(cmd)}\n')
    hh.project_settings(f"[[hooks.Stop]]\ncommand = {toml_str(cmd)}\n")
    repl, out = _repl(hh.session([{"content": "ok"}]))
    show_hooks(repl)
    text = out.getvalue()
    assert "PostToolUse  [Edit]" in text and "user settings; active" in text
    assert "Stop  [*]" in text and "awaiting approval" in text and "cairn hooks approve" in text


@pytest.mark.parametrize(("answer", "profile"), [("y", "workspace-write"), ("o", "off"), ("n", None)])
def test_the_trust_question_records_the_choice(hh, answer, profile):
    from cairn.graph.core.hooks.trust import approved_profile

    cmd = hh.script("h.py", LOG.format(marks=str(hh.marks)))
    hh.project_settings(f"[[hooks.SessionEnd]]\ncommand = {toml_str(cmd)}\n")
    session = hh.session([{"content": "ok"}])
    repl, out = _repl(session, answer)
    ask_project_hooks(repl)
    assert "SessionEnd [*]: " in out.getvalue() and repl.prompter.asked
    assert session.core.hooks_engine.project_profile == profile
    assert approved_profile(hh.ws, session.core.hooks_engine.config.project_hash) == profile
    if profile == "off":  # trusted now, in this process: it runs at close
        session.close()
        assert [e["hook_event_name"] for e in hh.seen()] == ["SessionEnd"]


def test_attach_notifier_by_surface(hh):
    session = hh.session([{"content": "ok"}])
    attach_notifier(session, "interactive")
    assert session.core.surface == "interactive" and session.core.notifier is not None
    attach_notifier(session, "headless")
    assert session.core.surface == "headless" and session.core.notifier is None
