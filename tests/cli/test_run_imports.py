"""A scripted ``cairn -p`` run imports only what it uses (issue 30: start-up CPU).

The OpenAI client, MCP, notebooks, PostgreSQL, the web tools' HTTP stack (httpx, httpcore,
html2text), the shell's regex filter and bash parser, images, Markdown, telemetry exporters, ACP
and the exact tokenizer are imported when a run needs them, never for a one-step scripted run on
SQLite; neither are langsmith's ~300 API models nor the LangGraph server SDK's client, which
langgraph's own imports would pull in (graph/apps/lazy_reexports.py defers them).
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
unused = {unused!r}
print(code, sorted(m for m in sys.modules if any(m == u or m.startswith(u + '.') for u in unused)))
"""

#: Modules (and everything below them) a one-step scripted run must not import.
UNUSED = (
    "langchain_openai",
    "openai",
    "tiktoken",
    "bpe_openai",  # an OpenAI endpoint's client
    "mcp",
    "langchain_mcp_adapters",  # MCP servers
    "psycopg",
    "psycopg_pool",  # PostgreSQL
    "nbformat",
    "ipywidgets",
    "IPython",
    "markdown_it",  # notebooks, Markdown as HTML
    "httpx",
    "httpcore",
    "html2text",  # web_fetch / web_search
    "regex",
    "bashlex",
    "PIL",  # bash_output's filter, the shell parser, images
    "acp",
    "opentelemetry.sdk.metrics",
    "opentelemetry.exporter",  # ACP, cairn's OTel export
    # Pulled in by langgraph's own imports unless deferred (graph/apps/lazy_reexports.py):
    "langsmith.types.run",
    "langsmith.types.dataset",
    "langgraph_sdk.client",
    "langgraph_sdk.encryption",
)


@pytest.mark.sqlite_only("the run's database is a SQLite file: Postgres drivers must stay unimported")
@pytest.mark.parametrize(
    ("output_format", "also_unused"),
    # Text mode shows tool lines on stderr through rich; json prints one object and needs no TUI.
    [("text", ()), ("json", ("rich", "pygments"))],
)
def test_a_scripted_print_run_imports_only_what_it_uses(
    output_format, also_unused, tmp_path, cli_env, workspace
):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"content": "ok"}]}))
    argv = ["-p", "hi", "--model", f"script:{script}", "--output-format", output_format]
    out = subprocess.run(
        [sys.executable, "-c", CHECK.format(argv=argv, unused=UNUSED + also_unused)],
        env=cli_env,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split(maxsplit=1) == ["0", "[]\n"], out.stdout
