"""The command grammar and the errors that exit 2, in-process (fast)."""

from __future__ import annotations

import pytest

from cairn.graph.apps.cli import main
from cairn.graph.apps.cli.grammar import split_command


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], (None, [])),
        (["fix the tests"], (None, ["fix the tests"])),
        (["sessions", "--all"], ("sessions", ["--all"])),
        (["--db", "x.db", "sessions"], ("sessions", ["--db", "x.db"])),
        (["--model", "resume", "hi"], (None, ["--model", "resume", "hi"])),  # a value, not a command
        (["-p", "demo"], (None, ["-p", "demo"])),
        (["--", "demo"], (None, ["--", "demo"])),
        (["resume", "abc", "--approve", "all"], ("resume", ["abc", "--approve", "all"])),
        (["policy", "check", "bash", "ls"], ("policy", ["check", "bash", "ls"])),
    ],
)
def test_split_command(argv, expected):
    assert split_command(argv) == expected


def test_help_lists_commands_and_exit_codes(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for word in ("resume", "sessions", "show", "policy", "demo", "--base-url", "--approval", "130"):
        assert word in out


@pytest.mark.parametrize("command", ["resume", "sessions", "show", "demo"])
def test_every_subcommand_has_help(command, capsys):
    assert main([command, "--help"]) == 0
    assert f"cairn {command}" in capsys.readouterr().out


def test_bad_flag_is_a_usage_error(capsys):
    assert main(["--approval", "yolo", "-p", "hi"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_bad_max_steps_is_a_usage_error(capsys):
    assert main(["--max-steps", "0", "-p", "hi"]) == 2


def test_no_model_configured_explains_the_options(capsys, workspace, monkeypatch):
    monkeypatch.delenv("CAIRN_MODEL", raising=False)
    assert main(["-p", "hello", "--workspace", workspace]) == 2
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err and "--base-url" in err


def test_missing_script_is_a_usage_error(capsys, workspace):
    assert main(["-p", "hi", "--model", "script:/nonexistent/s.json", "--workspace", workspace]) == 2
    assert "cannot read script" in capsys.readouterr().err


def test_missing_workspace_is_a_usage_error(capsys, tmp_path):
    assert (
        main(["-p", "hi", "--model", "x", "--base-url", "http://127.0.0.1:9", "-C", str(tmp_path / "no")])
        == 2
    )
    assert "not a directory" in capsys.readouterr().err


def test_print_without_prompt_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    assert main(["-p", "--model", "x", "--base-url", "http://127.0.0.1:9"]) == 2


def test_output_format_needs_print(capsys):
    assert main(["--output-format", "json", "hi"]) == 2
    assert "-p" in capsys.readouterr().err


def test_resume_needs_an_id_or_last(capsys):
    assert main(["resume", "--print"]) == 2
    assert "SESSION_ID" in capsys.readouterr().err


def test_resume_unknown_session_is_a_usage_error(capsys, db_location):
    assert main(["resume", "deadbeef", "-p", "--db", db_location]) == 2
    assert "no session matching 'deadbeef'" in capsys.readouterr().err


def test_resume_last_without_sessions(capsys, workspace, db_location):
    assert main(["resume", "--last", "-p", "-C", workspace, "--db", db_location]) == 2
    assert "no sessions in" in capsys.readouterr().err


def test_show_unknown_session_is_a_usage_error(capsys, db_location):
    assert main(["show", "nope", "--db", db_location]) == 2


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("cairn ")


def test_output_format_on_an_interactive_resume_is_a_usage_error(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    assert main(["resume", "abc", "--output-format", "json"]) == 2
    assert "--output-format is for headless runs" in capsys.readouterr().err


def test_db_that_is_a_directory_is_a_usage_error(capsys, tmp_path, workspace):
    for argv in (["sessions"], ["show", "abc"], ["resume", "abc", "-p"], ["-p", "hi", "--model", "x"]):
        assert main([*argv, "--db", str(tmp_path), "-C", workspace]) == 2, argv
        err = capsys.readouterr().err
        assert f"cannot open the database at {tmp_path}: it is a directory" in err, argv


def test_db_that_is_not_a_database_is_a_usage_error(capsys, tmp_path):
    bad = tmp_path / "garbage.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    assert main(["sessions", "--db", str(bad)]) == 2
    assert f"cannot open the database at {bad}: file is not a database" in capsys.readouterr().err


def test_state_directory_that_cannot_be_created_is_a_usage_error(capsys, tmp_path, workspace, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.delenv("CAIRN_DB", raising=False)
    monkeypatch.setenv("CAIRN_HOME", str(blocker / "home"))
    assert main(["-p", "hi", "--model", "x", "--base-url", "http://127.0.0.1:9", "-C", workspace]) == 2
    assert f"cannot create the state directory {blocker}/home" in capsys.readouterr().err
    assert main(["sessions", "-C", workspace]) == 0  # reading needs no directory: just no sessions


def test_db_help_offers_postgres_and_wait(capsys):
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "a postgresql:// URL for a shared database" in out
    assert "--wait" in out and "--wait-timeout S" in out
    assert "cairn decide ID" in out


def test_wait_timeout_must_be_positive(capsys):
    assert main(["-p", "hi", "--wait", "--wait-timeout", "0"]) == 2
    assert "must be more than 0" in capsys.readouterr().err


READ_A = '{"file_path": "%s/a.txt"}'


@pytest.mark.parametrize(
    "argv",
    [
        ["--workspace", "{ws}", "policy", "check", "read_file", "{args}"],
        ["-C", "{ws}", "-v", "policy", "check", "read_file", "{args}"],
        ["policy", "check", "read_file", "{args}", "-C", "{ws}"],
        ["policy", "-v", "check", "read_file", "{args}", "--workspace={ws}"],
        ["policy", "check", "read_file", "{args}", "--workspace", "{ws}", "--verbose"],
    ],
)
def test_common_flags_work_with_policy_before_or_after_it(argv, workspace, capsys):
    open(f"{workspace}/a.txt", "w").close()
    argv = [a.format(ws=workspace, args=READ_A % workspace) for a in argv]
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "decision: allow" in out and "reads a.txt inside the workspace" in out  # the workspace reached it


def test_policy_with_a_missing_workspace_is_a_usage_error(capsys, tmp_path):
    for argv in (
        ["policy", "check", "bash", '{"command": "ls"}', "--workspace", str(tmp_path / "no")],
        ["-C", str(tmp_path / "no"), "policy", "check", "bash", '{"command": "ls"}'],
    ):
        assert main(argv) == 2
        assert "is not a directory" in capsys.readouterr().err


def test_policy_approval_flag_is_its_mode(capsys, workspace):
    argv = ["--approval", "plan", "policy", "check", "write_file", '{"file_path": "x", "content": ""}']
    assert main([*argv, "-C", workspace, "--json"]) == 0
    plan = capsys.readouterr().out
    assert (
        main(
            ["policy", "check", "write_file", '{"file_path": "x", "content": ""}', "-C", workspace, "--json"]
        )
        == 0
    )
    assert plan != capsys.readouterr().out
