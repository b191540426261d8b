"""``cairn show SESSION_ID [--json]``: the transcript and every tool call of a session.

Read-only and straight from the store: no Session, no tools, so a session whose workspace was
deleted (or moved) can still be shown.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from rich.console import Group
from rich.text import Text

from cairn.graph.cli.exits import CliError
from cairn.graph.cli.fmt import visible
from cairn.graph.cli.options import Options

#: The role of the message that hands the model the images tools returned (not the person).
TOOL_IMAGES = "tool-images"


@dataclass
class Shown:
    session_id: str
    workspace: str
    status: str
    mode: str
    history: list[Any]
    calls: list[Any]


def load(session_id: str, opts: Options) -> Shown:
    from cairn.checkpoints.location import resolve_location

    location = resolve_location(opts.db)
    if location != ":memory:" and "://" not in location and not os.path.exists(location):
        raise CliError(f"no session matching {session_id!r} in {location}")
    from cairn.checkpoints import open_store

    store = open_store(opts.db)
    try:
        record = store.sessions.get(session_id)
        if record is None:
            matches = store.sessions.find(session_id)
            if len(matches) != 1:
                why = "no session" if not matches else f"{len(matches)} sessions"
                raise CliError(f"{why} matching {session_id!r} in {store.location}")
            record = matches[0]
        sid = record.session_id
        saved = store.saver.get_tuple({"configurable": {"thread_id": sid}})
        values = saved.checkpoint["channel_values"] if saved is not None else {}
        history = store.transcript.read(sid, values.get("head"))
        from cairn.graph.calllog import assemble_calls

        calls = assemble_calls(store, sid, history, values)
        return Shown(sid, record.workspace, record.status, record.mode, history, calls)
    finally:
        store.close()


def role(message: Any) -> str:
    from cairn.graph.messages import is_person_message

    if message.type == "human" and not is_person_message(message):
        return TOOL_IMAGES
    return {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}.get(
        message.type, message.type
    )


def message_json(message: Any) -> dict[str, Any]:
    kind = role(message)
    out: dict[str, Any] = {"role": kind, "content": message.text}
    if kind == "assistant" and getattr(message, "tool_calls", None):
        out["tool_calls"] = [
            {"id": c["id"], "name": c["name"], "args": c.get("args") or {}} for c in message.tool_calls
        ]
    if kind == "tool":
        out["tool_call_id"] = message.tool_call_id
        out["status"] = getattr(message, "status", "success")
    if kind == TOOL_IMAGES:
        out["images"] = _image_count(message)
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
        "sandbox": call.sandbox,
        "display": call.display,
    }


def run_show(ns: Any, opts: Options) -> int:
    shown = load(ns.session_id, opts)
    if ns.json:
        doc = {
            "session_id": shown.session_id,
            "workspace": shown.workspace,
            "status": shown.status,
            "messages": [message_json(m) for m in shown.history],
            "tool_calls": [call_json(c) for c in shown.calls],
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
        return 0
    _print(shown, verbose=opts.verbose)
    return 0


def _print(shown: Shown, *, verbose: bool) -> None:
    """Everything in one ``console.print``: rendering line by line costs seconds at 5,000 turns."""
    from cairn.graph.cli.render import Renderer
    from cairn.graph.cli.term import make_console

    console = make_console()
    renderer = Renderer(console, verbose=verbose)
    by_id = {c.call_id: c for c in shown.calls}
    head = Text(f"session {shown.session_id}", style="bold")
    head.append(f" · {shown.status} · {shown.mode} · {shown.workspace}", style="dim")
    if not os.path.isdir(shown.workspace):
        head.append(" (workspace no longer exists)", style="yellow")
    out: list[Text] = [head]
    for message in shown.history:
        kind = role(message)
        if kind == "user":
            out.append(Text("\nyou › ", style="bold cyan") + Text(visible(message.text)))
        elif kind == TOOL_IMAGES:
            count = _image_count(message)
            out.append(Text(f"    ({count} image(s) from the tools above went to the model)", "dim"))
        elif kind == "assistant":
            if message.text:
                out.append(Text("\ncairn › ", style="bold") + Text(visible(message.text)))
            for tc in message.tool_calls:
                call = by_id.get(tc["id"])
                if call is None:
                    continue
                asked = call.reason if call.risk and call.risk != "LOW" and call.reason else None
                note = f"policy: {asked}" if asked else None
                if call.sandbox:
                    note = f"{note} · sandbox: {call.sandbox}" if note else f"sandbox: {call.sandbox}"
                out.extend(renderer.call_texts(call.model_dump(mode="json"), note=note))
    _emit(console, out)


def _emit(console: Any, texts: list[Text]) -> None:
    """Write ``texts`` as lines in one go.

    Without colors (a pipe, a file, ``NO_COLOR``) the lines are the texts' plain strings, which is
    what rich would print, without its per-Text rendering (~100 µs each: seconds at 5,000
    turns).  With colors rich renders them, in one ``print``.
    """
    if console.no_color and not console.is_jupyter and not console.legacy_windows:
        from rich.control import strip_control_codes

        console.file.write("".join(strip_control_codes(t.plain) + "\n" for t in texts))
        console.file.flush()
        return
    console.print(Group(*texts), soft_wrap=True)


def _image_count(message: Any) -> int:
    content = message.content if isinstance(message.content, list) else []
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") in ("image_url", "image"))
