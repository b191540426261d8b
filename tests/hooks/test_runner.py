"""The runner on its own: output bounds, timeout of a whole process group, exit codes."""

from __future__ import annotations

import os
import shlex
import sys
import time

from cairn.graph.core.hooks.config import HookSpec
from cairn.graph.core.hooks.outcome import interpret
from cairn.graph.core.hooks.runner import MAX_OUTPUT, run_command


def _hook(code: str, timeout: float = 10) -> HookSpec:
    return HookSpec("PreToolUse", "*", f"{sys.executable} -c {shlex.quote(code)}", timeout, "user")


def test_output_is_cut_and_the_hook_never_blocks_on_a_full_pipe(tmp_path):
    raw = run_command(
        _hook("import sys; sys.stdout.write('y' * 3_000_000)"), {}, cwd=str(tmp_path), env=dict(os.environ)
    )
    assert raw.exit_code == 0 and raw.stdout.startswith("y" * 1000)
    assert len(raw.stdout) <= MAX_OUTPUT + 40 and raw.stdout.endswith("[output cut at 64 KiB]")


def test_a_timeout_kills_the_hook_and_what_it_started(tmp_path):
    marker = tmp_path / "child-survived"
    child = tmp_path / "child.py"
    child.write_text(f"import time\ntime.sleep(3)\nopen({str(marker)!r}, 'w').write('x')\n")
    code = f"import subprocess, sys, time; subprocess.Popen([sys.executable, {str(child)!r}]); time.sleep(60)"
    started = time.monotonic()
    raw = run_command(_hook(code, timeout=1), {}, cwd=str(tmp_path), env=dict(os.environ))
    assert raw.timed_out and raw.exit_code is None and time.monotonic() - started < 8
    run = interpret(_hook(code, timeout=1), raw)
    assert run.error == "timed out after 1s (killed)" and run.decision is None
    time.sleep(3.5)
    assert not marker.exists()  # its child was in the process group: killed too


def test_the_payload_arrives_on_stdin_as_json(tmp_path):
    code = "import json, sys; d = json.load(sys.stdin); print(d['tool_input']['file_path'])"
    raw = run_command(
        _hook(code), {"tool_input": {"file_path": "naïve.txt"}}, cwd=str(tmp_path), env=dict(os.environ)
    )
    assert raw.exit_code == 0 and raw.stdout.strip() == "naïve.txt"
