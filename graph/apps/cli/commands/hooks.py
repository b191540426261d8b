"""-- hooks (issue 32): ``cairn hooks list|approve``, ``/hooks``, and the CLI's questions about a
project's hooks (held until a person approves them, as ``.mcp.json`` servers are)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cairn.graph.apps.cli.options import Options


def hook_rows(root: Path, *, trust_flag: bool = False) -> list[dict[str, Any]]:
    """Every configured hook: event, matcher, command, timeout, where from, and its status."""
    from cairn.graph.core.hooks.loading import load_config, project_profile

    config = load_config(root)
    profile = project_profile(config, root, trust_flag=trust_flag)
    rows = []
    for hook in config.hooks:
        if hook.source != "project":
            status, sandbox = "active", "off"
        elif profile is None:
            status, sandbox = "awaiting approval", None
        else:
            status, sandbox = "trusted", profile
        rows.append(
            {
                "event": hook.event,
                "matcher": hook.matcher,
                "command": hook.command,
                "timeout": hook.timeout,
                "source": hook.source,
                "status": status,
                "sandbox": sandbox,
            }
        )
    return rows


def print_rows(rows: list[dict[str, Any]], out: Any = None) -> None:
    out = out or sys.stdout
    if not rows:
        print("no hooks configured ([[hooks.EVENT]] in settings.toml or .cairn/settings.toml)", file=out)
        return
    for row in rows:
        where = "user settings" if row["source"] == "user" else "project .cairn/settings.toml"
        sandbox = f", sandbox {row['sandbox']}" if row["sandbox"] else ""
        print(
            f"{row['event']}  [{row['matcher']}]  {row['command']}  (timeout {row['timeout']:g}s; {where}; "
            f"{row['status']}{sandbox})",
            file=out,
        )
    if any(r["status"] == "awaiting approval" for r in rows):
        print(
            "  project hooks do not run until approved: `cairn hooks approve` (or --trust-project-hooks)",
            file=out,
        )


def run_hooks(ns: argparse.Namespace, opts: Options) -> int:
    from cairn.graph.core.hooks.config import HooksConfigError
    from cairn.graph.core.hooks.loading import load_config
    from cairn.graph.core.hooks.trust import record_approval

    root = opts.workspace_root()
    try:
        if ns.action == "approve":
            config = load_config(root)
            if not config.project:
                print("this project has no hooks to approve")
                return 0
            record_approval(root, config.project_hash, ns.sandbox)
            print(f"approved the project's {len(config.project)} hook(s) (sandbox: {ns.sandbox})")
        rows = hook_rows(root, trust_flag=opts.trust_project_hooks)
    except HooksConfigError as exc:
        print(f"cairn: error: {exc}", file=sys.stderr)
        return 2
    if ns.json:
        print(json.dumps(rows, indent=2))
    else:
        print_rows(rows)
    return 0


def warn_held(session: Any) -> None:
    """Headless: a project's hooks that nobody approved do not run; say so on stderr."""
    engine = session.core.hooks_engine
    if engine is not None and engine.held:
        print(
            f"cairn: the project's {len(engine.held)} hook(s) did not run (never approved); "
            "approve with `cairn hooks approve` or pass --trust-project-hooks",
            file=sys.stderr,
        )


def ask_project_hooks(repl: Any) -> None:
    """Interactive: ask once whether the project's hooks may run (remembered per content hash)."""
    from rich.text import Text

    session = repl.session
    engine = session.core.hooks_engine
    if engine is None or not engine.held:
        return
    console = repl.console
    console.print(Text("  This project's settings run these hook commands on your machine:", style="yellow"))
    for hook in engine.held:
        console.print(Text(f"    {hook.event} [{hook.matcher}]: {hook.command}"), soft_wrap=True)
    if not repl.prompter.tty:
        console.print(Text("  not run (no terminal to ask); use `cairn hooks approve`", style="dim"))
        return
    prompt = Text("  run them? ", style="yellow")
    prompt.append("y yes, sandboxed (workspace-write) · o yes, without sandbox · n no › ", style="bold")
    try:
        key = repl.prompter.key(prompt, "yon")
    except (EOFError, KeyboardInterrupt):
        key = "n"
    if key == "n":
        console.print(Text("  not run in this session", style="dim"))
        return
    from cairn.graph.core.hooks.trust import record_approval

    profile = "off" if key == "o" else "workspace-write"
    record_approval(session.workspace.root, engine.config.project_hash, profile)
    engine.trust(profile)
    console.print(Text(f"  approved (sandbox: {profile})", style="green"))


def show_hooks(repl: Any) -> None:
    """``/hooks``: what is configured, from where, trusted or not."""
    import io

    from rich.text import Text

    buffer = io.StringIO()
    print_rows(hook_rows(repl.session.workspace.root), out=buffer)
    for line in buffer.getvalue().splitlines():
        repl.console.print(Text(f"  {line}", style="dim"), soft_wrap=True)


def attach_notifier(session: Any, surface: str) -> None:
    """Where the session runs; the interactive CLI also gets the terminal's notification channels."""
    session.core.surface = surface
    if surface == "interactive":
        from cairn.graph.core.hooks.loading import load_notifications
        from cairn.graph.core.hooks.notify import TerminalNotifier

        session.core.notifier = TerminalNotifier(load_notifications(session.workspace.root), sys.stderr)
    else:
        session.core.notifier = None
