"""An MCP server for the tests, written with the ``mcp`` SDK (FastMCP).

    python -m tests.support.mcp_server [--transport stdio|http|sse] [--port N] [--marks DIR] [--many N]

Tools: ``echo`` (read-only hint), ``add``, ``effect`` (logs each run to ``DIR/runs.log``, writes
``DIR/started-LABEL``, then sleeps ``seconds`` unless ``DIR/fast`` exists), ``fail`` (an MCP tool error), ``crash`` (the
process exits at once), and with ``--many N`` the tools ``extra_00`` … (read-only).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations


def build(marks: Path, many: int, port: int) -> FastMCP:
    server = FastMCP("cairn-test", host="127.0.0.1", port=port, log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def echo(text: str) -> str:
        """Echo the text back."""
        return f"echo: {text}"

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def effect(label: str, seconds: float = 0.0) -> str:
        """A side effect the tests count."""
        with open(marks / "runs.log", "a") as fh:
            fh.write(label + "\n")
        (marks / f"started-{label}").write_text(str(os.getpid()))
        time.sleep(0 if (marks / "fast").exists() else seconds)
        return f"ran {label}"

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with the reason."""
        raise ValueError(reason)

    @server.tool()
    def crash() -> str:
        """The server process exits at once."""
        os._exit(3)

    def make_extra(i: int):
        def extra(query: str) -> str:
            return f"extra {i}: {query}"

        return extra

    for i in range(many):
        server.add_tool(
            make_extra(i),
            name=f"extra_{i:02d}",
            description=f"Look up catalogue section {i} (widgets, gadgets and item number {i}).",
            annotations=ToolAnnotations(readOnlyHint=True),
        )
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", default="stdio", choices=("stdio", "http", "sse"))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--marks", default=".")
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--started", help="a file to append this process's pid to when it starts")
    ns = parser.parse_args()
    if ns.started:
        with open(ns.started, "a") as fh:
            fh.write(f"{os.getpid()}\n")
    server = build(Path(ns.marks), ns.many, ns.port)
    server.run(transport={"stdio": "stdio", "http": "streamable-http", "sse": "sse"}[ns.transport])


if __name__ == "__main__":
    main()
