"""`cairn --help` and `cairn sessions` never import langgraph/langchain (startup stays fast)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHECK = """
import sys, io, contextlib
from cairn.graph.apps.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main({argv!r})
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core', 'langchain_openai', 'openai', 'pydantic'))
print(code, heavy[:5])
"""


@pytest.mark.parametrize(
    "argv", [["--help"], ["sessions"], ["sessions", "--all", "--json"], ["resume", "--help"]]
)
def test_light_commands_do_not_import_the_agent(argv, tmp_path, cli_env):
    out = subprocess.run(
        [sys.executable, "-c", CHECK.format(argv=argv)],
        env=cli_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(maxsplit=1) == ["0", "[]\n"]
