"""``cairn show``: read-only from the store, person messages apart from tool image follow-ups."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from tests.cli.conftest import cairn_cmd, call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

IMAGE_TURNS = [
    {"content": "Look.", "tool_calls": [call("read_file", "c_img", file_path="img.png")]},
    {"content": "A red box."},
]


@pytest.fixture
def image_session(run_cairn, script, workspace):
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(Path(workspace, "img.png"))
    p = run_cairn("-p", "what is in img.png?", "--model", script(IMAGE_TURNS), "--output-format", "json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["session_id"]


def test_tool_images_are_not_shown_as_the_person(run_cairn, image_session):
    doc = json.loads(run_cairn("show", image_session, "--json").stdout)
    roles = [m["role"] for m in doc["messages"]]
    assert roles == ["user", "assistant", "tool", "tool-images", "assistant"]
    assert doc["messages"][3]["images"] == 1
    p = run_cairn("show", image_session)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("you ›") == 1 and "you › Images returned" not in p.stdout
    assert "1 image(s) from the tools above went to the model" in p.stdout


def test_resume_shows_the_persons_last_message_not_the_tool_images(image_session, cli_env, workspace):
    from cairn.graph.apps.cli.tui.resume_interactive import where
    from cairn.graph.session.session import Session

    session = Session.resume(image_session, db=cli_env["CAIRN_DB"])
    try:
        out = io.StringIO()
        where(SimpleNamespace(console=Console(file=out, width=200)), session)
    finally:
        session.close()
    assert "you: what is in img.png?" in out.getvalue()


def test_show_works_after_the_workspace_is_deleted(run_cairn, image_session, workspace, tmp_path, cli_env):
    before = json.loads(run_cairn("show", image_session, "--json").stdout)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(workspace)

    def show(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*cairn_cmd(), "show", *args],
            cwd=elsewhere,
            env=cli_env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    p = show(image_session[:8], "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == before
    assert before["workspace"] == workspace and before["status"] == "done"
    assert [(c["call_id"], c["status"], c["risk"]) for c in before["tool_calls"]] == [
        ("c_img", "success", "LOW")
    ]
    p = show(image_session)
    assert p.returncode == 0, p.stderr
    assert "workspace no longer exists" in p.stdout and "read_file img.png" in p.stdout
