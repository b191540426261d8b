"""`cairn policy check TOOL 'JSON' [--workspace DIR] [--mode MODE] [--json]` (cairn.policy.cli.main)."""

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
    assert set(data) == {"decision", "risk", "reason", "rule", "sandbox"}
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
    assert json.loads(proc.stdout) == {
        "decision": "allow",
        "risk": "LOW",
        "reason": "read-only inside the workspace: git status",
        "rule": None,
        "sandbox": "read-only",
    }


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
