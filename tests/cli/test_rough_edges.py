"""The rough edges a new user hit, each through the real ``cairn`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import call, last_json_line

pytestmark = pytest.mark.slow
#: The tests that open the database run on SQLite and PostgreSQL; the others are about file paths
#: or never open it.
BOTH = pytest.mark.usefixtures("db_location")

USAGE_KEYS = {"input_tokens", "output_tokens", "model_calls", "cost"}


@BOTH
def test_a_typo_of_a_command_gets_did_you_mean_and_a_real_prompt_stays_a_prompt(run_cairn, script):
    p = run_cairn("sesions")
    assert p.returncode == 2 and "did you mean `cairn sessions`?" in p.stderr
    assert run_cairn("shwo", "3f2a").returncode == 2  # `cairn show 3f2a`, mistyped
    assert "did you mean `cairn resume`?" in run_cairn("--db", ":memory:", "resme").stderr
    # prompts: several words, or one word that is no command's typo, or after --
    model = script([{"content": "ok"}, {"content": "ok"}, {"content": "ok"}])
    for args in (["-p", "fix the sesions list"], ["-p", "explain"], ["-p", "--", "sesions"]):
        p = run_cairn("--model", model, *args)
        assert p.returncode == 0 and p.stdout.strip() == "ok", (args, p.stderr)


@BOTH
def test_a_configuration_error_leaves_no_running_session(run_cairn):
    p = run_cairn("-p", "hi", "--model", "openai:", env={"OPENAI_API_KEY": "dummy"})
    assert p.returncode == 2 and "empty model name" in p.stderr
    assert json.loads(run_cairn("sessions", "--json").stdout) == []


def test_db_in_a_missing_directory_is_an_error_and_makes_no_directory(run_cairn, script, tmp_path):
    missing = tmp_path / "no-such-dir" / "cairn.db"
    p = run_cairn("-p", "hi", "--model", script([{"content": "ok"}]), "--db", str(missing))
    assert p.returncode == 2 and "no directory" in p.stderr and str(missing.parent) in p.stderr
    assert not missing.parent.exists()


def test_sessions_and_show_on_a_missing_db_file_say_so(run_cairn, tmp_path):
    missing = tmp_path / "typo.db"
    for args in (("sessions",), ("sessions", "--json"), ("show", "abc")):
        p = run_cairn(*args, "--db", str(missing))
        assert p.returncode == 2 and f"no database at {missing}" in p.stderr, (args, p.stderr)
    assert not missing.exists()


@BOTH
def test_show_without_an_id_and_with_last_picks_the_latest_session(run_cairn, script):
    assert "no sessions in" in run_cairn("show").stderr
    first = json.loads(
        run_cairn("-p", "one", "--model", script([{"content": "A."}]), "--output-format", "json").stdout
    )
    second = json.loads(
        run_cairn("-p", "two", "--model", script([{"content": "B."}]), "--output-format", "json").stdout
    )
    for args in (("show", "--json"), ("show", "--last", "--json")):
        p = run_cairn(*args)
        assert p.returncode == 0 and json.loads(p.stdout)["session_id"] == second["session_id"], p.stderr
    assert (
        json.loads(run_cairn("show", first["session_id"][:10], "--json").stdout)["session_id"]
        == first["session_id"]
    )
    assert run_cairn("show", first["session_id"], "--last").returncode == 2


def test_policy_check_flags_unknown_argument_keys(run_cairn):
    p = run_cairn("policy", "check", "bash", '{"cmd": "rm -rf build"}')
    assert p.returncode == 0 and "decision:" in p.stdout
    assert "bash has no argument 'cmd'" in p.stderr and "command" in p.stderr
    clean = run_cairn("policy", "check", "Bash", '{"command": "ls", "timeout": 5}')
    assert clean.returncode == 0 and "has no argument" not in clean.stderr
    alias = run_cairn("policy", "check", "bash_output", '{"bash_id": "bg-1"}')  # a documented alias key
    assert "has no argument" not in alias.stderr


@BOTH
def test_json_results_always_carry_the_usage_keys(run_cairn, script):
    model = script(
        [{"content": "", "tool_calls": [call("write_file", "w1", file_path="a.txt", content="a")]}]
    )
    paused = json.loads(run_cairn("-p", "write", "--model", model, "--output-format", "json").stdout)
    assert set(paused["usage"]) == USAGE_KEYS
    sid = paused["session_id"]
    # a usage error found while resuming reports where the session stands, usage keys included
    p = run_cairn("resume", sid, "--retry", "all", "-p", "--output-format", "json")
    assert p.returncode == 2 and set(json.loads(p.stdout)["usage"]) == USAGE_KEYS
    assert run_cairn("resume", sid, "--reject", "all", "-p").returncode in (0, 1)
    done = run_cairn("resume", sid, "-p", "--output-format", "json")  # nothing to do
    assert json.loads(done.stdout)["usage"] == dict.fromkeys(USAGE_KEYS, 0)


@BOTH
def test_stream_json_says_approval_required_when_a_run_pauses(run_cairn, script, workspace):
    model = script(
        [{"content": "", "tool_calls": [call("write_file", "w1", file_path="a.txt", content="a")]}]
    )
    p = run_cairn("-p", "write", "--model", model, "--output-format", "stream-json")
    assert p.returncode == 3
    events = [json.loads(line) for line in p.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[-2:] == ["approval_required", "result"]
    required = events[-2]
    assert required["status"] == "awaiting_approval" and [c["call_id"] for c in required["pending"]] == ["w1"]
    assert any("--approve" in line for line in required["resume"])
    assert last_json_line(p.stdout)["status"] == "awaiting_approval"
    message = next(e for e in events if e["type"] == "message")
    assert message["call_ids"] == ["w1"]
    assert not Path(workspace, "a.txt").exists()


@BOTH
def test_headless_text_keeps_the_narration_between_tool_calls_in_order(run_cairn, script, workspace):
    Path(workspace, "a.txt").write_text("alpha\n")
    Path(workspace, "b.txt").write_text("beta\n")
    turns = [
        {
            "content": "First I read both files.",
            "tool_calls": [
                call("read_file", "r1", file_path="a.txt"),
                call("read_file", "r2", file_path="b.txt"),
            ],
        },
        {"content": "Then the listing.", "tool_calls": [call("ls", "l1", path=".")]},
        {"content": "Both say hello."},
    ]
    p = run_cairn("-p", "read", "--model", script(turns))
    assert p.returncode == 0 and p.stdout == "Both say hello.\n"  # stdout: only the answer
    err = p.stderr
    order = [
        err.index(s)
        for s in ("First I read both", "read_file a.txt", "read_file b.txt", "Then the listing", "ls .")
    ]
    assert order == sorted(order), err
    assert "Both say hello." not in err  # the answer is not repeated on stderr
