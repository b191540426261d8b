"""``cairn demo`` runs to completion offline: edit, tests, a SIGKILL mid-command, resume, retry."""

from __future__ import annotations

import io
import json
import re
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import cairn_cmd

pytestmark = pytest.mark.slow


def test_demo_non_tty_auto_approves_and_finishes(cli_env, tmp_path):
    began = time.monotonic()
    p = subprocess.run(
        [*cairn_cmd(), "demo", "--keep"],
        cwd=tmp_path,
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.monotonic() - began
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout
    assert elapsed < 60
    assert "\x1b[" not in out  # no colors or spinners off a TTY
    for step in (
        "read_file README.md",
        "grep median",
        "edit_file stats/core.py",
        "auto-approved (not a TTY)",
    ):
        assert step in out
    assert "running python -m unittest -v" in out
    assert "SIGKILLed while the tests were running" in out
    assert "The process stopped while this call was running" in out and "auto-retried" in out
    assert "Ran 5 tests" in out and "OK" in out
    assert "All 5 tests pass." in out
    workspace = Path(re.search(r"· workspace (\S+)", out).group(1))
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in (workspace / "stats" / "core.py").read_text()
    # the edit ran once, the test command was not silently re-run on resume (it was retried by decision)
    db = re.search(r"--db (\S+)", out).group(1)
    show = subprocess.run(
        [*cairn_cmd(), "show", re.search(r"cairn show (\w+)", out).group(1), "--db", db, "--json"],
        env=cli_env,
        capture_output=True,
        text=True,
    )
    calls = {c["call_id"]: c for c in json.loads(show.stdout)["tool_calls"]}
    assert calls["demo_edit"]["status"] == "success" and calls["demo_tests"]["status"] == "success"
    assert calls["demo_tests"]["risk"] == "MEDIUM"


def test_demo_on_a_tty_asks(cli_env, tmp_path):
    env = cli_env | {"TERM": "xterm-256color", "NO_COLOR": "1"}
    cmd = cairn_cmd()
    child = pexpect.spawn(
        cmd[0],
        [*cmd[1:], "demo"],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=60,
    )
    log = io.StringIO()
    child.logfile_read = log
    child.expect("edit_file stats/core.py")
    child.expect("Allow\\?")
    child.expect("› ")
    child.send("y")
    child.expect("\\$ python -m unittest -v")
    child.expect("› ")
    child.send("y")
    child.expect("SIGKILLed")
    child.expect("Run it again\\?")
    child.expect("› ")
    child.send("r")
    child.expect("All 5 tests pass.")
    child.expect("temporary folder was removed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    workspace = re.search(r"· workspace (\S+)", log.getvalue())
    assert workspace and not Path(workspace.group(1)).exists()  # the temporary folder is gone


def test_demo_declining_the_test_run_skips_the_crash_part(cli_env, tmp_path):
    env = cli_env | {"TERM": "xterm-256color", "NO_COLOR": "1"}
    cmd = cairn_cmd()
    child = pexpect.spawn(
        cmd[0],
        [*cmd[1:], "demo"],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        dimensions=(50, 200),
        timeout=60,
    )
    child.expect("Allow\\?")
    child.expect("› ")
    child.send("y")
    child.expect("\\$ python -m unittest -v")
    child.expect("› ")
    child.send("n")
    child.expect("what should it do instead\\?")
    child.sendline("")
    child.expect("the tests were not run, so the crash-and-resume part was skipped")
    child.expect(pexpect.EOF)
    child.close()
    assert "ended early" not in child.before
    assert child.exitstatus == 0
