"""``cairn rewind`` headless and ``/rewind`` / ``u`` through a real pseudo-terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import call
from tests.cli.test_interactive_pty import MENU_END, finish, spawn  # noqa: F401  (fixture; it uses conftest's pty_cairn)

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

TURNS = [
    {
        "content": "Editing.",
        "tool_calls": [call("bash", "c1", command="sed -i 's/one/ONE/' a.txt && echo new > b.txt")],
    },
    {"content": "Now removing.", "tool_calls": [call("bash", "c2", command="rm a.txt")]},
    {"content": "Done."},
]


@pytest.fixture
def ran(run_cairn, script, workspace):
    Path(workspace, "a.txt").write_text("one\n")
    p = run_cairn(
        "-p", "change things", "--model", script(TURNS), "--approval", "bypass", "--output-format", "json"
    )
    assert p.returncode == 0, p.stderr
    assert not Path(workspace, "a.txt").exists()
    return json.loads(p.stdout)["session_id"]


def test_rewind_dry_run_then_rewind_then_redo(run_cairn, workspace, ran):
    ws = Path(workspace)
    p = run_cairn("rewind", ran, "c1", "--dry-run")
    assert p.returncode == 0, p.stderr
    assert "(dry run)" in p.stdout and "+one" in p.stdout and "restored  a.txt" in p.stdout
    assert not (ws / "a.txt").exists()  # nothing changed
    p = run_cairn("rewind", ran, "c1")
    assert p.returncode == 0, p.stderr
    assert (ws / "a.txt").read_text() == "one\n" and not (ws / "b.txt").exists()
    assert f"cairn rewind {ran} --redo" in p.stdout
    doc = json.loads(run_cairn("show", ran, "--json").stdout)
    assert [m["role"] for m in doc["messages"]] == ["user"]
    [rewind] = doc["rewinds"]
    assert rewind["target"] == "call c1" and "Done." in [m["content"] for m in rewind["rewound_messages"]]
    assert "(rewound) assistant › Done." in run_cairn("show", ran).stdout
    p = run_cairn("rewind", ran, "--redo")
    assert p.returncode == 0, p.stderr
    assert not (ws / "a.txt").exists() and (ws / "b.txt").read_text() == "new\n"
    assert json.loads(run_cairn("show", ran, "--json").stdout)["messages"][-1]["content"] == "Done."


def test_code_only_turn_rewind_with_a_conflict(run_cairn, workspace, ran):
    ws = Path(workspace)
    (ws / "b.txt").write_text("mine\n")
    p = run_cairn("rewind", ran, "--turn", "1", "--code", "--json")
    assert p.returncode == 1
    result = json.loads(p.stdout)
    assert result["conflicts"] == ["b.txt"] and result["restored"] == ["a.txt"]
    assert (ws / "b.txt").read_text() == "mine\n" and (ws / "a.txt").read_text() == "one\n"
    assert json.loads(run_cairn("show", ran, "--json").stdout)["messages"][-1]["content"] == "Done."
    p = run_cairn("rewind", ran, "--turn", "1", "--code", "--force")
    assert p.returncode == 0 and not (ws / "b.txt").exists()


def test_usage_errors_exit_2(run_cairn, ran):
    assert run_cairn("rewind", ran).returncode == 2
    p = run_cairn("rewind", ran, "nosuchcall")
    assert p.returncode == 2 and "no call matching" in p.stderr
    assert run_cairn("rewind", ran, "--turn", "9").returncode == 2


def test_u_undoes_the_last_change_and_rewind_menu(spawn, script, workspace):  # noqa: F811
    ws = Path(workspace)
    (ws / "a.txt").write_text("one\n")
    child = spawn("--model", script(TURNS), "--approval", "bypass", "change things")
    child.expect("Done.")
    child.expect(r"u undo bash \(a.txt\)")
    child.expect(MENU_END)
    child.sendline("u")
    child.expect("1 file\\(s\\) were restored")
    child.expect(MENU_END)
    assert (ws / "a.txt").read_text() == "ONE\n" and (ws / "b.txt").exists()
    child.sendline("/rewind")
    child.expect("rewind to just before:")
    child.expect("turn 1")
    child.expect("number \\(Enter cancels\\)")
    child.sendline("1")
    child.expect("\\(dry run\\)")
    child.expect("code only")
    child.send("y")
    child.expect("/rewind redo undoes this rewind")
    child.expect(MENU_END)
    assert (ws / "a.txt").read_text() == "one\n" and not (ws / "b.txt").exists()
    child.sendline("/exit")
    assert finish(child) == 0
