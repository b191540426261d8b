"""``cairn show SESSION_ID [--json]``: the transcript and every tool call of a session."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.text import Text

from graph.cli.exits import CliError
from graph.cli.fmt import visible
from graph.cli.options import Options


def load(session_id: str, opts: Options) -> Any:
    from graph.session import Session, SessionError

    try:
        return Session.resume(session_id, db=opts.db)
    except (SessionError, ValueError) as exc:
        raise CliError(str(exc)) from exc


def message_json(message: Any) -> dict[str, Any]:
    role = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}.get(
        message.type, message.type
    )
    out: dict[str, Any] = {"role": role, "content": message.text}
    if role == "assistant" and getattr(message, "tool_calls", None):
        out["tool_calls"] = [
            {"id": c["id"], "name": c["name"], "args": c.get("args") or {}} for c in message.tool_calls
        ]
    if role == "tool":
        out["tool_call_id"] = message.tool_call_id
        out["status"] = getattr(message, "status", "success")
    return out


def call_json(call: Any) -> dict[str, Any]:
    result = call.result if call.status == "success" else call.error_msg
    if isinstance(result, list):  # content blocks (images): keep the text parts
        result = "\n".join(b.get("text", f"[{b.get('type')}]") for b in result if isinstance(b, dict))
    return {
        "call_id": call.call_id,
        "tool_name": call.tool_name,
        "arguments": call.arguments,
        "status": call.status,
        "risk": call.risk,
        "reason": call.reason,
        "result": result,
        "decision": call.decision,
        "display": call.display,
    }


def run_show(ns: Any, opts: Options) -> int:
    session = load(ns.session_id, opts)
    try:
        history = session.history()
        calls = session.tool_calls()
        if ns.json:
            doc = {
                "session_id": session.id,
                "workspace": str(session.workspace.root),
                "status": session.status,
                "messages": [message_json(m) for m in history],
                "tool_calls": [call_json(c) for c in calls],
            }
            json.dump(doc, sys.stdout, ensure_ascii=False, indent=2, default=str)
            sys.stdout.write("\n")
            return 0
        _print(session, history, calls, verbose=opts.verbose)
        return 0
    finally:
        session.close()


def _print(session: Any, history: list[Any], calls: list[Any], *, verbose: bool) -> None:
    from graph.cli.render import Renderer
    from graph.cli.term import make_console

    console = make_console()
    renderer = Renderer(console, verbose=verbose)
    by_id = {c.call_id: c for c in calls}
    head = Text(f"session {session.id}", style="bold")
    head.append(f" · {session.status} · {session.mode} · {session.workspace.root}", style="dim")
    console.print(head, soft_wrap=True)
    for message in history:
        if message.type == "human":
            console.print(Text("\nyou › ", style="bold cyan") + Text(visible(message.text)), soft_wrap=True)
        elif message.type == "ai":
            if message.text:
                console.print(Text("\ncairn › ", style="bold") + Text(visible(message.text)), soft_wrap=True)
            for tc in message.tool_calls:
                call = by_id.get(tc["id"])
                if call is None:
                    continue
                asked = call.reason if call.risk and call.risk != "LOW" and call.reason else None
                renderer.print_call(call.model_dump(mode="json"), note=f"policy: {asked}" if asked else None)
