"""Program names for the display (bashlex, with a fallback)."""

from __future__ import annotations

import pytest

from cairn.tools.shell.bash import bash_label
from cairn.tools.shell.parse import programs, short_command


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", ["git"]),
        ("FOO=1 ls -la | grep x && echo $(date)", ["ls", "grep", "echo", "date"]),
        ("cd sub; make test", ["cd", "make"]),
        ("/usr/bin/git log --oneline", ["git"]),
        ("for f in *.py; do wc -l $f; done", ["wc"]),
        ("(cd a && ls) > out.txt", ["cd", "ls"]),
        ("> out.txt echo hi", ["echo"]),
        ("[[ -f x ]] && cat x", ["cat"]),  # bashlex cannot parse [[ ]]: fallback
        ("case $x in a) ls;; esac", ["ls"]),  # nor case
        ("echo a; echo b", ["echo"]),
    ],
)
def test_programs(command, expected):
    assert programs(command) == expected


def test_label_marks_read_only_only_when_the_policy_said_low():
    assert bash_label("git status", "LOW") == "Running: git status (read-only)"
    assert bash_label("git status", "MEDIUM") == "Running: git status"
    assert bash_label("git status", None) == "Running: git status"


def test_short_command_is_one_bounded_line():
    assert short_command("make\nmake install") == "make …"
    assert len(short_command("x" * 500)) == 100
