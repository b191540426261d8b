"""``cairn show SESSION_ID [--json]``: the transcript and every tool call of a session.

Read-only and straight from the store: no Session, no tools, so a session whose workspace was
deleted (or moved) can still be shown.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.exits import CliError
from cairn.graph.apps.cli.options import Options
from cairn.graph.apps.cli.tui.fmt import visible
from cairn.tools.file_ops.names import escape_data

#: The role of the message that hands the model the images tools returned (not the person).
TOOL_IMAGES = "tool-images"
#: A compaction marker: from here on the model saw a summary instead of the messages above it.
COMPACTION = "compaction"


@dataclass
class Shown:
    session_id: str
    workspace: str
    status: str
    mode: str
    history: list[Any]
    calls: list[Any]
    rewinds: list[dict[str, Any]]
    tasks: list[dict[str, Any]]
    children: list[Any]
    #: issue 34: the session's spend (``cairn.graph.core.cost.report.session_cost``).
    cost: dict[str, Any] = field(default_factory=dict)


def load(session_id: str, opts: Options) -> Shown:
    from cairn.checkpoints.location import resolve_location

    location = resolve_location(opts.db)
    if location != ":memory:" and "://" not in location and not os.path.exists(location):
        raise CliError(f"no session matching {session_id!r} in {location}")
    store = open_for_reading(opts.db)
    try:
        record, why = store.sessions.resolve(session_id)
        if record is None:
            raise CliError(f"{why} matching {session_id!r} in {store.location}")
        sid = record.session_id
        saved = store.saver.get_tuple({"configurable": {"thread_id": sid}})
        values = saved.checkpoint["channel_values"] if saved is not None else {}
        history = store.transcript.read(sid, values.get("head"))
        from cairn.graph.apps.cli.commands.show_rewinds import rewinds_json
        from cairn.graph.core.calllog import assemble_calls

        calls = assemble_calls(store, sid, history, values)
        rewinds = rewinds_json(store, sid, message_json)
        tasks = list(values.get("tasks") or [])
        children = store.sessions.children(sid)
        from cairn.graph.apps.cli.tui.cost import stored_cost  # issue 34 hook-in

        return Shown(
            sid,
            record.workspace,
            record.status,
            record.mode,
            history,
            calls,
            rewinds,
            tasks,
            children,
            cost=stored_cost(store, sid, values, record.workspace),
        )
    finally:
        store.close()


def open_for_reading(db: str | None) -> Any:
    """The store, read-only when it is a SQLite file (a file or directory the person may only
    read is shown all the same); Postgres through the full store."""
    from cairn.checkpoints.location import resolve_location

    location = resolve_location(db)
    if location == ":memory:" or "://" in location:
        from cairn.checkpoints import open_store

        return open_store(db)
    from cairn.checkpoints.readonly import open_readonly_store

    return open_readonly_store(location)


_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def role(message: Any) -> str:
    kind = message.type
    if kind == "system":
        from cairn.graph.core.compaction.view import is_marker

        if is_marker(message):
            return COMPACTION
    elif kind == "human":
        from cairn.graph.core.messages import is_person_message

        if not is_person_message(message):
            return TOOL_IMAGES
    return _ROLES.get(kind, kind)


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
    if kind == COMPACTION:
        from cairn.graph.core.compaction.view import marker_info

        out["compaction"] = marker_info(message)
    return out


def latest_id(opts: Options) -> str:
    """The most recent session of the workspace (``cairn show`` without an id, ``--last``)."""
    from cairn.graph.apps.cli.commands.sessions import list_records

    root = opts.workspace_root()
    rows = list_records(opts.db, root, limit=1)
    if not rows:
        raise CliError(f"no sessions in {root}; `cairn sessions --all` lists every one")
    return rows[0].session_id


def run_show(ns: Any, opts: Options) -> int:
    if ns.session_id and ns.last:
        raise CliError("give a SESSION_ID or --last, not both")
    # A short-lived command building ~10 objects per message and dropping none of them: the
    # cyclic collector would only rescan them, a third of the run at 5,000 turns.
    gc.disable()
    try:
        return _show(ns, opts)
    finally:
        gc.enable()


def _show(ns: Any, opts: Options) -> int:
    from cairn.graph.core.export.document import call_fields

    shown = load(ns.session_id or latest_id(opts), opts)
    if ns.json:
        doc = {
            "session_id": shown.session_id,
            "workspace": shown.workspace,
            "status": shown.status,
            "messages": [message_json(m) for m in shown.history],
            "tool_calls": [call_fields(c) for c in shown.calls],
            "rewinds": shown.rewinds,
            "tasks": shown.tasks,
            "children": [c.to_dict() for c in shown.children],
            "cost": shown.cost,  # issue 34
        }
        sys.stdout.write(dump_json(doc) + "\n")
        return 0
    _print(shown, verbose=opts.verbose, plain=opts.plain)
    return 0


def dump_json(doc: Any) -> str:
    """``json.dumps(doc, ensure_ascii=False, indent=2, default=str)``, with orjson (8x faster on a
    long session) for everything it writes the same way; the standard library for the rest."""
    import orjson

    options = (
        orjson.OPT_INDENT_2
        | orjson.OPT_NON_STR_KEYS
        | orjson.OPT_PASSTHROUGH_DATETIME
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | orjson.OPT_PASSTHROUGH_SUBCLASS
    )
    try:
        return orjson.dumps(doc, default=str, option=options).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):  # integers beyond 64 bits; lone surrogates
        # (undecodable names), written as \xff escapes so the output is valid UTF-8
        return json.dumps(escape_data(doc), ensure_ascii=False, indent=2, default=str)


def _print(shown: Shown, *, verbose: bool, plain: bool = False) -> None:
    from cairn.graph.apps.cli.tui.onepass import OnePassConsole
    from cairn.graph.apps.cli.tui.term import make_console

    console = OnePassConsole(make_console(plain=plain))
    try:
        _print_to(console, shown, verbose=verbose)
    finally:
        console.flush()


def _print_to(console: Any, shown: Shown, *, verbose: bool) -> None:
    from cairn.graph.apps.cli.tui.render import Renderer

    renderer = Renderer(console, verbose=verbose)
    by_id = {c.call_id: c for c in shown.calls}
    head = Text(f"session {shown.session_id}", style="bold")
    head.append(f" · {shown.status} · {shown.mode} · {shown.workspace}", style="dim")
    if not os.path.isdir(shown.workspace):
        head.append(" (workspace no longer exists)", style="yellow")
    console.print(head, soft_wrap=True)
    from cairn.graph.apps.cli.tui.cost import cost_summary  # issue 34 hook-in: what it cost

    console.print(Text(cost_summary(shown.cost), style="dim"), soft_wrap=True)
    for message in shown.history:
        kind = role(message)
        if kind == "user":
            console.print(Text("\nyou › ", style="bold cyan") + Text(visible(message.text)), soft_wrap=True)
        elif kind == COMPACTION:
            from cairn.graph.apps.cli.tui.slash import compaction_line
            from cairn.graph.core.compaction.view import marker_info

            console.print(
                Text("\n── " + compaction_line(marker_info(message)).strip() + " ──", style="yellow")
            )
            if verbose:
                console.print(Text(visible(message.text), style="dim"), soft_wrap=True)
        elif kind == TOOL_IMAGES:
            count = _image_count(message)
            console.print(Text(f"    ({count} image(s) from the tools above went to the model)", "dim"))
        elif kind == "assistant":
            if message.text:
                console.print(Text("\ncairn ›", style="bold"))
                renderer.print_answer(message.text)
            for tc in message.tool_calls:
                call = by_id.get(tc["id"])
                if call is None:
                    continue
                asked = call.reason if call.risk and call.risk != "LOW" and call.reason else None
                note = f"policy: {asked}" if asked else None
                if call.sandbox:
                    note = f"{note} · sandbox: {call.sandbox}" if note else f"sandbox: {call.sandbox}"
                if call.network:
                    note = f"{note} · network: {', '.join(call.network)}"
                renderer.print_call(call.model_dump(mode="json"), note=note)
                if call.hooks:  # -- hooks (issue 32): each hook run and what it decided
                    from cairn.graph.core.hooks.display import hook_line

                    for run in call.hooks:
                        console.print(
                            Text(f"    {hook_line(run, quiet_ok=False)}", style="dim"), soft_wrap=True
                        )
    if shown.tasks:
        from cairn.tools.todo import render_tasks

        console.print(Text("\n" + render_tasks(shown.tasks, ids=True)), soft_wrap=True)
    for child in shown.children:
        line = f"  sub-agent {child.session_id} · {child.status} · {child.title or '(no message)'}"
        console.print(Text(line, style="dim"), soft_wrap=True)
    from cairn.graph.apps.cli.commands.show_rewinds import print_rewinds

    print_rewinds(console, shown.rewinds)


def _image_count(message: Any) -> int:
    content = message.content if isinstance(message.content, list) else []
    return sum(1 for b in content if isinstance(b, dict) and b.get("type") in ("image_url", "image"))
