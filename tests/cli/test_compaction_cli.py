"""Compaction from the command line: --context-window, the stream-json ``compacted`` event,
``cairn show`` with its marker, and ``/compact`` in the interactive prompt (a real pty)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import cairn_cmd, call

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db_location")]  # on SQLite and PostgreSQL

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa\n"


def _files(workspace: str, n: int = 20) -> None:
    for i in range(n):
        Path(workspace, f"f{i:02d}.txt").write_text(WORDS * 70)


def _reads(n: int) -> list[dict]:
    return [{"tool_calls": [call("read_file", f"r{i}", file_path=f"f{i % 20:02d}.txt")]} for i in range(n)]


def test_stream_json_reports_compaction_and_show_marks_it(run_cairn, workspace, script):
    _files(workspace)
    spec = script([*_reads(40), {"content": "all read"}])
    p = run_cairn(
        "-p",
        "read the files",
        "--model",
        spec,
        "--context-window",
        "6000",
        "--max-steps",
        "100",
        "--output-format",
        "stream-json",
    )
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    compacted = [e for e in events if e["type"] == "compacted"]
    assert compacted, [e["type"] for e in events][:50]
    first = compacted[0]
    assert first["source"] == "model" and first["trigger"] == "auto"
    assert first["tokens_after"] < first["tokens_before"]
    sid = next(e["session_id"] for e in events if e.get("session_id"))
    shown = run_cairn("show", sid, "--json")
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    roles = [m["role"] for m in doc["messages"]]
    assert roles.count("compaction") == len(compacted)
    assert roles.count("tool") == 40  # the whole history is still there
    marker = next(m for m in doc["messages"] if m["role"] == "compaction")
    assert marker["compaction"]["summarized"] > 0 and "## Goal" in marker["content"]
    text = run_cairn("show", sid)
    assert "compacted:" in text.stdout


def test_slash_compact_in_the_interactive_prompt(cli_env, workspace, script):
    import pexpect

    _files(workspace, 4)
    spec = script([*_reads(4), {"content": "done reading"}])
    child = pexpect.spawn(
        cairn_cmd()[0],
        ["--model", spec, *cairn_cmd()[1:]],
        cwd=workspace,
        env=cli_env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
    try:
        child.expect("› ")
        child.sendline("read four files")
        child.expect("done reading")
        child.expect("› ")
        child.sendline("/compact keep the file names")
        child.expect(r"compacted: \d+ earlier messages")
        child.expect("› ")
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
