"""`cairn policy check TOOL 'JSON' [--workspace DIR] [--mode MODE] [--json]` and
`cairn policy programs [NAME] [--json]` (cairn.policy.cli.main)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.policy.cli import main

REPO = Path(__file__).resolve().parents[2]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["check", "bash", '{"command": "git status"}', "--workspace", str(ws)], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "decision: allow"
    assert lines[1] == "risk:     LOW"
    assert lines[2].startswith("reason:   ") and "git status" in lines[2]
    assert lines[3] == "rule:     -"


def test_json_output_with_a_rule_from_settings(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text('[permissions]\ndeny = ["bash(git push:*)"]\n')
    argv = ["check", "Bash", '{"command": "git push origin main"}', "--workspace", str(ws), "--json"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"decision", "risk", "reason", "rule", "sandbox", "records"}
    assert data["decision"] == "deny" and data["rule"] == "bash(git push:*)"
    assert data["sandbox"] is None  # a refused call runs nowhere


def test_mode_option(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = '{"file_path": "src/app.py", "old_string": "hi", "new_string": "ho"}'
    decisions = {}
    for mode in ("default", "accept-edits", "plan", "bypass"):
        code, out, _ = _run(
            ["check", "edit_file", args, "--workspace", str(ws), "--mode", mode, "--json"], capsys
        )
        assert code == 0
        decisions[mode] = json.loads(out)["decision"]
    assert decisions == {"default": "ask", "accept-edits": "allow", "plan": "deny", "bypass": "allow"}


def test_default_workspace_is_the_current_directory(
    ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ws / "src")
    code, out, _ = _run(["check", "read_file", '{"file_path": "app.py"}', "--json"], capsys)
    assert code == 0 and json.loads(out)["decision"] == "allow"


def test_no_dns_option(ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("DNS used")

    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    argv = ["check", "web_fetch", '{"url": "https://example.com/"}', "--workspace", str(ws), "--no-dns"]
    code, out, _ = _run(argv, capsys)
    assert code == 0 and out.startswith("decision: ask")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "bash", "{not json"], "ARGS is not valid JSON"),
        (["check", "bash", '["ls"]'], "ARGS must be a JSON object"),
        (["check", "bash"], "the following arguments are required"),
        (["check", "bash", "{}", "--mode", "yolo"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_usage_errors_exit_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(argv, capsys)
    assert code == 2
    assert out == ""
    assert message in err
    assert "cairn policy" in err


def test_invalid_settings_exit_2_naming_the_file(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = ws / ".cairn" / "settings.toml"
    settings.parent.mkdir()
    settings.write_text('[permissions]\nallow = ["web_fetch(example.com)"]\n')
    code, out, err = _run(["check", "bash", '{"command": "ls"}', "--workspace", str(ws)], capsys)
    assert code == 2 and out == ""
    assert str(settings) in err and "web_fetch(example.com)" in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["check", "--help"], capsys)
    assert code == 0 and "--workspace" in out and "--mode" in out


def test_installed_cairn_command_dispatches_to_the_policy_cli(ws: Path) -> None:
    cairn = Path(sys.executable).parent / "cairn"
    assert cairn.exists(), "the project is installed (pip install -e .) with its console script"
    proc = subprocess.run(
        [
            str(cairn),
            "policy",
            "check",
            "Bash",
            '{"command": "git status"}',
            "--workspace",
            str(ws),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    records = data.pop("records")
    assert data == {
        "decision": "allow",
        "risk": "LOW",
        "reason": "read-only inside the workspace: git status",
        "rule": None,
        "sandbox": "read-only",
    }
    assert [(r["part"], r["record"], r["risk"]) for r in records] == [("git status", "git", "LOW")]


def test_python_m_policy_cli(ws: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cairn.policy.cli",
            "check",
            "read_file",
            '{"file_path": "src/app.py"}',
            "--workspace",
            str(ws),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["decision"] == "allow"
    bad = subprocess.run(
        [sys.executable, "-m", "cairn.policy.cli", "check", "bash", "{oops"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr


# -- check names the records that decided -------------------------------------------------------


def test_check_names_the_record_that_needed_approval(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "bash", '{"command": "git status && pytest -q"}', "--workspace", str(ws), "--json"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    data = json.loads(out)
    assert data["decision"] == "ask"
    assert [r["record"] for r in data["records"]] == ["pytest"]  # git status only reads
    assert data["records"][0]["part"] == "pytest -q"
    code, out, _ = _run(argv[:-1], capsys)
    lines = out.splitlines()
    assert lines[4].startswith("record:   pytest [policy/shell/programs/") and "'pytest -q'" in lines[4]


def test_check_names_every_record_of_an_allowed_command(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["check", "bash", '{"command": "git status && ls src"}', "--workspace", str(ws), "--json"]
    _, out, _ = _run(argv, capsys)
    data = json.loads(out)
    assert data["decision"] == "allow"
    assert [(r["record"], r["part"]) for r in data["records"]] == [("git", "git status"), ("ls", "ls src")]
    from cairn.policy.shell.programs import record

    for use in data["records"]:  # each names the file its program record is stated in
        assert use["source"] == f"policy/shell/programs/{record(use['record']).module}.py"


def test_check_names_a_tools_own_record(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "check",
        "memory",
        '{"action": "add", "note": "x"}',
        "--workspace",
        str(ws),
        "--json",
        "--mode",
        "plan",
    ]
    _, out, _ = _run(argv, capsys)
    data = json.loads(out)
    assert data["decision"] == "deny"
    [record] = data["records"]
    assert record["record"] == "tool memory (action add)"
    assert "not in plan mode" in record["reason"]
    assert record["source"] == "cairn.tools.memory.MemoryTool"


# -- programs: the auto-allow surface ---------------------------------------------------------------


def _programs(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return _run(["programs", *argv], capsys)


def test_programs_lists_what_runs_without_asking(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _programs(capsys, "--json", "--workspace", str(ws))
    assert code == 0 and err == ""
    listed = {p["name"]: p for p in json.loads(out)["programs"]}
    assert {"cat", "ls", "grep", "head", "git"} <= set(listed)
    assert listed["cat"]["category"] in ("read", "reader") and "-n" in listed["cat"]["options"]
    assert "workspace" in listed["cat"]["reads"]
    assert "rm" not in listed and "pytest" not in listed
    assert listed["curl"]["category"] == "version"  # `curl --version` only
    assert listed["curl"]["options"] == ["--version", "-V", "-v"]
    code, out, _ = _programs(capsys, "--workspace", str(ws))
    assert code == 0
    assert out.splitlines()[0].split()[:2] == ["PROGRAM", "CATEGORY"]
    assert any(line.split()[:1] == ["cat"] and "-n" not in line.split()[1] for line in out.splitlines())


def test_every_listed_option_runs_without_asking(ws: Path) -> None:
    """The listing tells the truth: each option it shows for a reader, lister or searcher is allowed
    by the policy on a workspace file, and an option it does not show asks."""
    from cairn.policy import evaluate
    from cairn.policy.surface import programs

    (ws / "README.md").write_text("hello\n")
    checked = 0
    for program in programs():
        if not program.operand_files or program.category in ("version", "handler"):
            continue
        for option in program.options:
            if " " in option or "=" in option or not option.startswith("-") or option == "-NUM":
                continue  # options with a value: their value may name a path, judged as such
            command = f"{program.name} {option} README.md"
            verdict = evaluate("bash", {"command": command}, workspace=ws)
            assert verdict.decision == "allow", (command, verdict.reason)
            checked += 1
    assert checked > 500
    for command in ("cat --no-such-option README.md", "ls --no-such-option", "head --no-such README.md"):
        assert evaluate("bash", {"command": command}, workspace=ws).decision == "ask", command


def test_programs_name_shows_options_paths_and_record(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _programs(capsys, "head", "--workspace", str(ws))
    assert code == 0
    assert out.splitlines()[0] in ("head (read)", "head (reader)")
    assert "reads:" in out and "inside the workspace" in out and "record:" in out
    assert "-n VALUE" in out and "--lines=VALUE" in out
    code, out, _ = _programs(capsys, "head", "--json", "--workspace", str(ws))
    [program] = json.loads(out)["programs"]
    assert program["name"] == "head" and "-n VALUE" in program["options"]


def test_programs_without_a_record_exit_1(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _programs(capsys, "frobnicate", "--workspace", str(ws))
    assert code == 1 and out == ""
    assert "frobnicate has no record" in err and "asks" in err


def test_a_writer_is_listed_by_name_with_nothing_unasked(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _programs(capsys, "rm", "--workspace", str(ws))
    assert code == 0 and "rm (write)" in out and "every use asks" in out


def test_programs_lists_the_workspaces_allow_rules_and_the_mode(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (ws / ".cairn").mkdir()
    (ws / ".cairn" / "settings.toml").write_text(
        '[permissions]\nallow = ["bash(npm run test:*)", "read_file"]\n'
    )
    code, out, _ = _programs(capsys, "cat", "--workspace", str(ws), "--mode", "accept-edits")
    assert code == 0
    assert "also allowed by this workspace's rules: bash(npm run test:*)" in out
    assert "read_file" not in out.split("rules:")[1].splitlines()[0]
    assert "accept-edits mode also runs" in out
    code, out, _ = _programs(capsys, "--json", "--workspace", str(ws))
    assert json.loads(out)["allow_rules"] == ["bash(npm run test:*)"]


def test_installed_cairn_policy_programs(ws: Path) -> None:
    cairn = Path(sys.executable).parent / "cairn"
    proc = subprocess.run(
        [str(cairn), "-C", str(ws), "policy", "programs", "cat", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    [program] = json.loads(proc.stdout)["programs"]
    assert program["name"] == "cat" and "-n" in program["options"]


def test_programs_read_the_program_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records (``policy.shell.programs.records()``) give the options, paths and examples shown."""
    import types

    from cairn.policy.surface import programs

    option = types.SimpleNamespace(text="--lines=VALUE")
    record = types.SimpleNamespace(
        name="zzview",
        category="reader",
        module="readers",
        operands="read",
        options=(types.SimpleNamespace(text="-n"), option),
        numeric=True,
        env=("ZZVIEW_PAGER",),
        handler="",
        notes=(),
        allow=("zzview README.md",),
        ask=("zzview /etc/passwd",),
        deny=(),
    )
    fake = types.ModuleType("cairn.policy.shell.programs")
    fake.records = lambda: [record]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cairn.policy.shell.programs", fake)
    import cairn.policy.shell

    monkeypatch.setattr(cairn.policy.shell, "programs", fake, raising=False)
    [shown] = programs("zzview")
    assert shown.options == ("-n", "--lines=VALUE", "-NUM")
    assert "inside the workspace" in shown.reads and shown.operand_files
    assert [(e.command, e.decision) for e in shown.examples] == [
        ("zzview README.md", "allow"),
        ("zzview /etc/passwd", "ask"),
    ]
    assert shown.source == "policy/shell/programs/readers.py"
    assert any("ZZVIEW_PAGER" in note for note in shown.notes)
    assert all(p.source != "safeflags" for p in programs())  # the records replace the reader table
