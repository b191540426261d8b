"""``cairn models check [--base-url URL] [--model NAME] [--json]``: can cairn work with this endpoint?"""

from __future__ import annotations

import argparse
import json
import os
import sys

from cairn.graph.apps.cli.exits import ERROR, USAGE


def run_models(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cairn models", description="Probe an OpenAI-compatible endpoint.")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="probe the endpoint: models, tool calls, streaming, context window")
    check.add_argument("--base-url", help="the endpoint (default: $OPENAI_BASE_URL)")
    check.add_argument("--model", help="the model (default: $CAIRN_MODEL, else $OPENAI_MODEL)")
    check.add_argument("--json", action="store_true", help="the report as JSON")
    ns = parser.parse_args(argv)
    base = ns.base_url or os.environ.get("OPENAI_BASE_URL") or ""
    from cairn.graph.models.factory import env_model_spec

    model = ns.model or env_model_spec() or ""
    if not base or not model:
        print(
            "cairn: error: models check needs --base-url URL and --model NAME (or OPENAI_BASE_URL, "
            "CAIRN_MODEL)",
            file=sys.stderr,
        )
        return USAGE
    from cairn.graph.core.profiles import choose_profile
    from cairn.graph.models.probe import probe_endpoint

    report = probe_endpoint(base, model, api_key=os.environ.get("OPENAI_API_KEY") or "not-needed")
    profile = choose_profile(None, None, report.context_window)
    if ns.json:
        print(json.dumps({**report.to_dict(), "profile": profile}, indent=2))
    else:
        print("\n".join(describe(report, profile)))
    return 0 if report.usable else ERROR


def describe(report, profile: str) -> list[str]:
    mark = {True: "ok", False: "NO", None: "?"}
    lines = [f"endpoint     {report.base_url}  [{mark[report.reachable]}]"]
    if report.reachable:
        listed = "not checked" if report.listed is None else ("listed" if report.listed else "NOT listed")
        lines.append(
            f"model        {report.model}  ({listed}; the server has: {', '.join(report.models[:8]) or '-'})"
        )
        window = (
            f"{report.context_window:,} tokens  (from {report.window_source})"
            if report.context_window
            else "not reported (not in /models, /props or /api/show)"
        )
        lines.append(f"context      {window}")
        lines.append(f"tool calls   {report.tool_calls}")
        lines.append(f"streaming    {report.streaming}")
    lines += [f"problem      {p}" for p in report.problems]
    lines.append("")
    if report.usable:
        lines.append(
            f"cairn will use the {profile} tool profile{profile_reason(report.context_window, profile)}"
        )
        if report.tool_calls == "json-in-text":
            lines.append(
                "tool calls come back as JSON text: cairn recovers them; a server-side tool parser "
                "(vLLM --tool-call-parser, llama.cpp --jinja) is faster and more reliable"
            )
        if not report.context_window:
            lines.append(
                "tell cairn the context window: --context-window N or CAIRN_CONTEXT_WINDOW=N "
                "(8192-16384: also --tools lean)"
            )
        lines.append(
            f"run: cairn --base-url {report.base_url} --model {report.model}"
            + (" --tools lean" if profile == "lean" else "")
        )
    else:
        lines.append("cairn cannot work with this endpoint as it is: see the problems above")
    return lines


def profile_reason(window: int | None, profile: str) -> str:
    """Why ``auto`` chose ``profile`` for ``window`` (the rule is ``cairn.graph.core.profiles``)."""
    from cairn.graph.core.profiles import SMALL_CONTEXT

    if window is None:
        return " (no window reported: cairn assumes a large one)"
    if profile == "lean":
        return f" (small context window): {window:,} tokens <= {SMALL_CONTEXT:,}"
    return f": the {window:,}-token window is above {SMALL_CONTEXT:,}"
