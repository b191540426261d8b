"""Hook tests: real hook scripts (Python files in the temp workspace) run by a real session."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.conftest import cli_env, run_cairn, script  # noqa: F401  (fixtures for the CLI tests)
from tests.graph.conftest import Harness


class HookHarness(Harness):
    """A graph harness that also writes hook scripts and settings files."""

    def script(self, name: str, body: str) -> str:
        """A Python hook script in ``ws/.hooks``; returns the command that runs it."""
        folder = self.ws / ".hooks"
        folder.mkdir(exist_ok=True)
        path = folder / name
        path.write_text("import json, os, sys, time\n" + textwrap.dedent(body))
        return f"{sys.executable} {path}"

    def user_settings(self, text: str) -> None:
        home = Path(os.environ["CAIRN_HOME"])
        home.mkdir(parents=True, exist_ok=True)
        (home / "settings.toml").write_text(textwrap.dedent(text))

    def project_settings(self, text: str) -> None:
        folder = self.ws / ".cairn"
        folder.mkdir(exist_ok=True)
        (folder / "settings.toml").write_text(textwrap.dedent(text))

    def seen(self, name: str = "seen.jsonl") -> list[dict]:
        """What hooks that log their stdin (``LOG`` in the scripts) received."""
        path = self.marks / name
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


#: Script prelude: read the event, append it to marks/seen.jsonl.
LOG = """
data = json.load(sys.stdin)
with open(os.path.join({marks!r}, "seen.jsonl"), "a") as fh:
    fh.write(json.dumps(data) + "\\n")
"""


@pytest.fixture
def hh(tmp_path) -> HookHarness:
    h = HookHarness(tmp_path)
    yield h
    h.close()


@pytest.fixture
def hh_both(tmp_path, db_location) -> HookHarness:
    h = HookHarness(tmp_path, db_location)
    yield h
    h.close()


def toml_str(text: str) -> str:
    return json.dumps(text)  # a TOML basic string is a JSON string for these commands
