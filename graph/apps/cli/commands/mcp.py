"""``cairn mcp list|approve`` and the CLI's questions about a project's MCP servers."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cairn.graph.apps.cli.options import Options


def _extensions(opts: Options) -> Any:
    from cairn.graph.session.extensions import Extensions
    from cairn.tools.workspace import Workspace

    return Extensions(
        Workspace(opts.workspace_root()),
        mcp_config=opts.mcp_config,
        trust_project_mcp=opts.trust_project_mcp,
        settings=opts.settings(),
    )


def run_mcp(ns: argparse.Namespace, opts: Options) -> int:
    ext = _extensions(opts)
    try:
        if ns.action == "approve":
            pending = ext.project_pending()
            if not pending:
                print("no project MCP servers wait for approval")
                return 0
            for server in pending:
                print(f"approved {server['name']}: {server['command']}  ({server['source']})")
            ext.approve_project()
        rows = ext.status()
    finally:
        ext.close()
    if ns.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no MCP servers configured (.mcp.json, mcp.json in the config dir, [mcp_servers] in settings)")
        return 0
    for row in rows:
        where = "project" if row["project"] else "user"
        print(f"{row['name']}  {row['status']}  {row['transport']}  ({where}: {row['source']})")
        if row["error"]:
            print(f"    error: {row['error']}")
        if row["tools"]:
            print(f"    tools: {', '.join(row['tools'])}")
        if row["status"] == "awaiting approval":
            print("    not started: approve with `cairn mcp approve` (or run with --trust-project-mcp)")
    return 0


def warn_unapproved(session: Any) -> None:
    """Headless: project servers without approval do not start; say so on stderr."""
    pending = session.project_mcp_pending()
    if pending:
        names = ", ".join(p["name"] for p in pending)
        print(
            f"cairn: project MCP servers not started (never approved): {names}; "
            "approve with `cairn mcp approve` or pass --trust-project-mcp",
            file=sys.stderr,
        )


def ask_project_servers(repl: Any) -> None:
    """Interactive: ask once whether the project's MCP servers may start (the answer is remembered)."""
    from rich.text import Text

    session = repl.session
    earlier = list(session.extensions.notices)
    session.extensions.on_notice = lambda text: repl.renderer.note(f"  {text}")
    for text in earlier:  # servers that failed before the prompt was wired up
        repl.renderer.note(f"  {text}")
    pending = session.project_mcp_pending()
    if not pending:
        return
    console = repl.console
    console.print(Text("  This project's MCP config runs these commands on your machine:", style="yellow"))
    for server in pending:
        console.print(
            Text(f"    {server['name']}: {server['command']}  ({server['source']})"), soft_wrap=True
        )
    if not repl.prompter.tty:
        console.print(Text("  not started (no terminal to ask); use `cairn mcp approve`", style="dim"))
        return
    prompt = Text("  start them? ", style="yellow")
    prompt.append("y yes, remember for this config · n no › ", style="bold")
    try:
        yes = repl.prompter.key(prompt, "yn") == "y"
    except (EOFError, KeyboardInterrupt):
        yes = False
    if yes:
        session.approve_project_mcp()
        console.print(Text("  approved; started", style="green"))
    else:
        console.print(Text("  not started; their tools are unavailable in this session", style="dim"))
