"""Crash consistency of hooks (issue 32 item 4): SIGKILL a real cairn process mid-hook and
between a tool and its PostToolUse hook, resume in a new process, count the hook runs.

- a PreToolUse hook that finished before the kill is not run again (its result is journaled);
  the one the kill cut off runs again (the documented window);
- a PostToolUse hook that was due when the process died runs exactly once on resume;
- the tool itself ran once.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from tests.graph.test_recovery_kill import Harness

pytestmark = pytest.mark.slow

HOOK = """
import json, os, sys, time
marks = {marks!r}
name = {name!r}
json.load(sys.stdin)
def log(line):
    with open(os.path.join(marks, "hooks.log"), "a") as fh:
        fh.write(line + "\\n")
log(name + "-start")
open(os.path.join(marks, name + "-started"), "w").write("x")
while os.path.exists(os.path.join(marks, "slow-" + name)):
    time.sleep(0.05)
log(name + "-end")
"""


def _configure(h: Harness) -> None:
    lines = []
    for event, name in (("PreToolUse", "pre1"), ("PreToolUse", "pre2"), ("PostToolUse", "post")):
        path = h.tmp / f"{name}.py"
        path.write_text(textwrap.dedent(HOOK.format(marks=str(h.marks), name=name)))
        lines.append(
            f'[[hooks.{event}]]\nmatcher = "effect"\ncommand = {json.dumps(f"{sys.executable} {path}")}\n'
        )
    home = Path(os.environ["CAIRN_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.toml").write_text("\n".join(lines))


def _log(h: Harness) -> list[str]:
    path = h.marks / "hooks.log"
    return path.read_text().split() if path.exists() else []


TURNS = [
    {"tool_calls": [{"name": "effect", "args": {"label": "a"}, "id": "call_a"}]},
    {"content": "done"},
]


def _one_answer_per_call(h: Harness) -> None:
    answers = [m for m in h.transcript() if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in answers] == ["call_a"]


@pytest.mark.smoke
def test_kill_during_a_pre_tool_use_hook(tmp_path, db_location):
    h = Harness(tmp_path, TURNS, db_location)
    _configure(h)
    (h.marks / "slow-pre2").write_text("x")
    h.start_and_kill("--send", "go", marker="pre2-started")
    (h.marks / "slow-pre2").unlink()
    assert _log(h) == ["pre1-start", "pre1-end", "pre2-start"]  # the hook died with cairn
    result = h.run("--continue")
    assert result["status"] == "done", result.get("error")
    # pre1 finished before the kill: journaled, not run again; pre2 was cut off: runs again.
    assert _log(h) == [
        "pre1-start",
        "pre1-end",
        "pre2-start",
        "pre2-start",
        "pre2-end",
        "post-start",
        "post-end",
    ]
    assert h.runs() == ["a"]
    _one_answer_per_call(h)


def test_kill_between_the_tool_and_its_post_tool_use_hook(tmp_path, db_location):
    h = Harness(tmp_path, TURNS, db_location)
    _configure(h)
    h.start_and_kill("--send", "go", marker="journaled-call_a", hook="after_result")
    assert h.runs() == ["a"] and "post-start" not in _log(h)
    result = h.run("--continue")
    assert result["status"] == "done", result.get("error")
    assert _log(h).count("post-start") == 1 and _log(h).count("post-end") == 1
    assert _log(h).count("pre1-start") == 1 and _log(h).count("pre2-start") == 1  # not asked again
    assert h.runs() == ["a"]  # the tool's result was adopted, not run again
    _one_answer_per_call(h)


class HoldingHarness(Harness):
    """Runs ``tests.hooks.hold_driver`` (the kill driver plus a stop after a journaled PostToolUse)."""

    hold = False

    def _cmd(self, *action: str, hook: str | None = None) -> list[str]:
        cmd = super()._cmd(*action, hook=hook)
        cmd[cmd.index("tests.support.kill_driver")] = "tests.hooks.hold_driver"
        return cmd + (["--hold-after-post"] if self.hold else [])


def test_kill_after_the_post_tool_use_hook_is_journaled(tmp_path, db_location):
    """Killed after the PostToolUse run was journaled but before the node's checkpoint: the
    resumed process re-runs ``tool_execution``, adopts the tool's result and the hook's."""
    h = HoldingHarness(tmp_path, TURNS, db_location)
    _configure(h)
    h.hold = True
    h.start_and_kill("--send", "go", marker="post-journaled")
    h.hold = False
    assert _log(h).count("post-end") == 1
    assert h.run("--continue")["status"] == "done"
    assert _log(h).count("post-start") == 1 and h.runs() == ["a"]
    _one_answer_per_call(h)
