"""A scripted ``cairn -p`` run imports only what it uses (issue 30: start-up CPU).

The OpenAI client, MCP, notebooks, PostgreSQL and the web fetcher's HTTP core are imported
when a run needs them, never for a one-step scripted run on SQLite.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CHECK = """
import sys, io, contextlib
from cairn.graph.apps.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main({argv!r})
    except SystemExit as exc:
        code = exc.code
unused = ('langchain_openai', 'openai', 'mcp', 'langchain_mcp_adapters', 'psycopg', 'nbformat',
          'ipywidgets', 'IPython', 'httpcore', 'tiktoken')
print(code, sorted({{m.split('.')[0] for m in sys.modules}} & set(unused)))
"""


@pytest.mark.sqlite_only("the run's database is a SQLite file: Postgres drivers must stay unimported")
def test_a_scripted_print_run_imports_only_what_it_uses(tmp_path, cli_env, workspace):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"content": "ok"}]}))
    argv = ["-p", "hi", "--model", f"script:{script}"]
    out = subprocess.run(
        [sys.executable, "-c", CHECK.format(argv=argv)],
        env=cli_env,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(maxsplit=1) == ["0", "[]\n"], out.stdout
