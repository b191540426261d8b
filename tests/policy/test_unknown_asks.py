"""Unknown means ask, as a property of every program record rather than of a few examples.

Each record's first allowed example is rewritten with a word the policy cannot know, an
environment prefix, or an expansion past the candidate limit, and must then ask; the harmless
prefixes keep it allowed.  Commands are data handed to ``policy.evaluate`` (no shell runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.policy import evaluate
from cairn.policy.shell.programs import records

#: Records whose words cannot be an option that changes what runs or is read: echo prints them
#: (its output is judged where it is used, ``| sh``), and cd/pushd only move the working
#: directory (an unknown one makes every later relative path unknown, and that asks).
_WORDS_ARE_DATA = {"echo", "cd", "pushd"}
BASES = [
    (r.name, r.allow[0])
    for r in records()
    if r.allow and r.allow[0].split()[0] == r.name and r.name not in _WORDS_ARE_DATA
]
UNKNOWN_WORDS = ['"$(cat .flags)"', '"${opts[@]}"', '"$@"', "$_", "${x@L}", "`cat .flags`"]


@pytest.fixture
def project(ws: Path) -> Path:
    (ws / "README.md").write_text('{"name": "x"}\n')
    (ws / ".flags").write_text("--pre=./x.sh\n")
    return ws


def _decision(command: str, ws: Path) -> str:
    return str(evaluate("bash", {"command": command}, workspace=ws).decision)


def test_the_bases_are_allowed(project: Path) -> None:
    assert len(BASES) > 40
    refused = [c for _, c in BASES if _decision(c, project) != "allow"]
    assert not refused, refused


@pytest.mark.parametrize("word", UNKNOWN_WORDS)
@pytest.mark.parametrize(("name", "base"), BASES, ids=[n for n, _ in BASES])
def test_an_unknown_word_where_an_option_can_go_asks(project: Path, name: str, base: str, word: str) -> None:
    command = base.replace(name, f"{name} {word}", 1)
    assert _decision(command, project) == "ask", command


@pytest.mark.parametrize(("name", "base"), BASES, ids=[n for n, _ in BASES])
def test_an_environment_prefix_not_on_the_harmless_list_asks(project: Path, name: str, base: str) -> None:
    assert _decision(f"FOO_CONFIG=./x.sh {base}", project) == "ask"
    assert _decision(f"env GCONV_PATH=. {base}", project) == "ask"
    assert _decision(f"LC_ALL=C TZ=UTC NO_COLOR=1 {base}", project) == "allow"


def test_an_expansion_past_the_limit_asks(project: Path) -> None:
    many = ",".join(f"f{k}" for k in range(70))
    assert _decision(f"cat {{{many},/etc/passwd}}", project) == "ask"
    values = " ".join(f"v{k}" for k in range(9))
    assert _decision(f"for f in {values} /etc/passwd; do cat $f; done", project) == "ask"
    assert _decision("for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; done", project) == "allow"


@pytest.mark.parametrize(
    "command",
    ['cat $"README.md"', "ls @(src|$(touch x))", "case a in $(touch x)) :;; esac", "cat ~-/x", "cat ~2/x"],
)
def test_forms_the_parser_could_misread_ask(project: Path, command: str) -> None:
    assert _decision(command, project) == "ask"


def test_tilde_plus_is_the_working_directory(project: Path) -> None:
    assert _decision("cat ~+/README.md", project) == "allow"
    assert _decision("cd src && cat ~+/app.py", project) == "allow"
