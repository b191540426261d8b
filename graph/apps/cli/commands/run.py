"""``cairn [PROMPT]`` (interactive) and ``cairn -p PROMPT`` (headless)."""

from __future__ import annotations

import argparse
import sys

from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options, preflight_model
from cairn.graph.apps.cli.tui.term import is_tty


def run_main(ns: argparse.Namespace, opts: Options) -> int:
    if ns.version:
        from importlib.metadata import version

        print(f"cairn {version('cairn-agent')}")
        return 0
    positional = " ".join(ns.prompt).strip()
    if ns.print_prompt is not None:
        prompt = " ".join(p for p in (ns.print_prompt, positional) if p).strip()
        if not prompt and not is_tty(sys.stdin):
            # Bytes that are not UTF-8 (a Latin-1 prompt) are kept, not fatal (surrogateescape).
            raw = getattr(sys.stdin, "buffer", None)
            prompt = (raw.read().decode("utf-8", "surrogateescape") if raw else sys.stdin.read()).strip()
        if not prompt:
            raise CliError("-p needs a prompt: cairn -p 'what to do' (or pipe it on stdin)")
        from cairn.graph.apps.cli.startup import quiet_gc

        with quiet_gc():  # loading the agent and building the session (startup.py)
            from cairn.graph.apps.cli.headless import new_session, run_prompt

            session = new_session(opts)
        return run_prompt(
            session,
            opts,
            prompt,
            ns.output_format,
            wait=(ns.wait or ns.wait_timeout is not None, ns.wait_timeout),
        )
    if ns.wait or ns.wait_timeout is not None:
        raise CliError("--wait is for headless runs: add -p PROMPT")
    if ns.output_format != "text":
        raise CliError("--output-format is for headless runs: add -p PROMPT")
    spec = opts.model_spec()
    preflight_model(spec)
    root = opts.workspace_root()
    from cairn.graph.apps.cli.tui.interactive import Interactive

    ui = Interactive(opts, spec=spec)
    ui.banner(root)
    ui.start_warmup()
    return ui.loop(first=positional or None)
