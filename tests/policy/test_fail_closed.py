"""Fail closed: what cannot be checked is never allowed - not in bypass mode, not by an allow rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.policy import Rules, evaluate
from cairn.policy.shell.analysis import MAX_CHARS
from cairn.policy.shell.bash.state import MAX_UNITS

UNCHECKABLE = {
    "too-long": "echo " + "a" * (MAX_CHARS - 4),
    "too-many-commands": "; ".join(["true"] * (MAX_UNITS + 1)),
    "nul": "ls\x00 -la",
    "rlo-override": "ls \u202egnp.exe",
    "lri-isolate": "cat \u2066src/app.py\u2069",
    "zero-width-space": "l\u200bs",
    "zero-width-joiner": "git\u200d status",
    "word-joiner": "rm\u2060 -rf src",
    "bom": "\ufeffls",
    "soft-hyphen": "ls\u00ad",
    "nbsp": "ls\u00a0-la",
    "control-char": "ls \x1b[2J",
    "unterminated-quote": "echo 'unterminated",
    "unterminated-subst": "echo $(ls",
    "subst-in-arith": "echo $(( $(id -u) + 1 ))",
    "subst-in-param": "echo ${x:-$(id)}",
    "subst-in-double-bracket": "[[ $(id -u) -eq 0 ]] && echo root",
    "unbalanced-paren": "ls )",
}
MODES_AND_RULES = [
    ("default", None),
    ("default", Rules(allow=["bash"])),
    ("accept-edits", Rules(allow=["bash(ls:*)", "bash(echo:*)", "bash(git:*)", "bash(cat:*)"])),
    ("bypass", None),
    ("bypass", Rules(allow=["bash"])),
]


@pytest.mark.parametrize("command", list(UNCHECKABLE.values()), ids=list(UNCHECKABLE))
@pytest.mark.parametrize(
    ("mode", "rules"), MODES_AND_RULES, ids=[f"{m}-{i}" for i, (m, _) in enumerate(MODES_AND_RULES)]
)
def test_uncheckable_commands_are_never_allowed(
    command: str, mode: str, rules: Rules | None, ws: Path
) -> None:
    verdict = evaluate("bash", {"command": command}, workspace=ws, mode=mode, rules=rules)
    assert verdict.decision != "allow", verdict
    assert verdict.risk == "HIGH"


def test_the_limits_are_the_documented_ones(ws: Path) -> None:
    assert (MAX_CHARS, MAX_UNITS) == (10_000, 50)
    at_limit = "echo " + "a" * (MAX_CHARS - 5)
    assert len(at_limit) == MAX_CHARS
    assert evaluate("bash", {"command": at_limit}, workspace=ws).decision == "allow"
    over = at_limit + "a"
    verdict = evaluate("bash", {"command": over}, workspace=ws)
    assert verdict.decision == "ask" and "10,001 characters" in verdict.reason
    fifty = "; ".join(["true"] * MAX_UNITS)
    assert evaluate("bash", {"command": fifty}, workspace=ws).decision == "allow"
    verdict = evaluate("bash", {"command": fifty + "; true"}, workspace=ws)
    assert verdict.decision == "ask" and "more than 50 simple commands" in verdict.reason


def test_a_huge_command_still_gets_hard_deny_checks(ws: Path) -> None:
    command = "echo " + "a" * 200_000 + "; rm -rf /"
    assert evaluate("bash", {"command": command}, workspace=ws, mode="bypass").decision == "deny"


def test_fail_closed_reason_names_the_problem(ws: Path) -> None:
    verdict = evaluate("bash", {"command": UNCHECKABLE["rlo-override"]}, workspace=ws)
    assert "U+202E" in verdict.reason
    verdict = evaluate("bash", {"command": UNCHECKABLE["nul"]}, workspace=ws)
    assert "NUL" in verdict.reason


def test_deny_rules_still_apply_to_uncheckable_commands(ws: Path) -> None:
    command = "rm -rf build; echo 'unterminated"
    verdict = evaluate("bash", {"command": command}, workspace=ws, rules=Rules(deny=["bash(rm:*)"]))
    assert verdict.decision == "deny"


@pytest.mark.parametrize(
    "path", ["src/\u202eyp.ppa", "src/app\u200b.py", "src/app.py\x00.txt", "src/\x1b[0mapp.py"]
)
@pytest.mark.parametrize("mode", ["default", "accept-edits", "bypass"])
def test_file_paths_with_invisible_or_control_characters(path: str, mode: str, ws: Path) -> None:
    for tool in ("read_file", "write_file"):
        verdict = evaluate(tool, {"file_path": path}, workspace=ws, mode=mode, rules=Rules(allow=[tool]))
        assert verdict.decision != "allow", (tool, verdict)


def test_non_string_paths_are_not_allowed(ws: Path) -> None:
    verdict = evaluate("read_file", {"file_path": ["src/app.py"]}, workspace=ws, mode="bypass")
    assert verdict.decision == "ask"
