"""CLI options reach the Session as Settings overrides (never through os.environ), and a bad
setting is a configuration error: one line naming the file and the key, exit code 2."""

from __future__ import annotations

import os
from pathlib import Path

from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.parsers import main_parser
from cairn.graph.models.scripted import ScriptedChatModel
from cairn.graph.session.session import Session


def test_flags_become_session_overrides_and_leave_the_environment_alone(workspace):
    before = dict(os.environ)
    argv = ["--tools", "lean", "--context-window", "8192", "--base-url", "http://127.0.0.1:9/v1", "-p", "x"]
    opts = Options.from_args(main_parser().parse_args(argv))
    kwargs = opts.session_kwargs()
    assert dict(os.environ) == before
    assert kwargs["tool_profile"] == "lean" and kwargs["context_window"] == 8192
    session = Session(workspace, model=ScriptedChatModel.from_turns([]), db=":memory:", **kwargs)  # type: ignore[arg-type]
    try:
        assert session.core.tool_profile == "lean"
        assert session.settings.context.window == 8192 and session.context_window == 8192
        assert session.settings.model.base_url == "http://127.0.0.1:9/v1"
    finally:
        session.close()
    assert dict(os.environ) == before


def test_session_keywords_override_the_files(workspace):
    cairn = Path(workspace) / ".cairn"
    cairn.mkdir()
    (cairn / "settings.toml").write_text('[tools]\ndefer_threshold = 3\nprofile = "lean"\n')
    session = Session(workspace, model=ScriptedChatModel.from_turns([]), db=":memory:", defer_threshold=40)
    try:
        assert session.extensions.defer_threshold == 40
        assert session.settings.tools.profile == "lean"
    finally:
        session.close()


def test_a_bad_setting_exits_2_naming_file_and_key(run_cairn, workspace, script):
    settings = Path(workspace) / ".cairn" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text("[agents]\nmax_steps = 0\n")
    p = run_cairn("-p", "hi", "--model", script([{"content": "hello"}]))
    assert p.returncode == 2, p.stderr
    assert f"cairn: error: {settings}: agents.max_steps: " in p.stderr
    assert "Traceback" not in p.stderr and "run again with -v" not in p.stderr
