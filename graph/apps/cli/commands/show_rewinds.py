"""The rewinds of a session for ``cairn show``: what each undid, and the branch it left behind.

The transcript is append-only: a conversation rewind only moves the head, so the rewound
messages are still stored and are listed here (oldest rewind first).
"""

from __future__ import annotations

from typing import Any


def rewinds_json(store: Any, session_id: str, message_json: Any) -> list[dict[str, Any]]:
    """Each rewind as a dict; ``message_json`` renders the messages it left behind."""
    out: list[dict[str, Any]] = []
    for record in store.snapshots.rewinds(session_id):
        plan = record.plan
        result = plan.get("result") or {}
        item: dict[str, Any] = {
            "rewind_id": record.rewind_id,
            "kind": record.kind,
            "status": record.status,
            "target": result.get("target"),
            "at": record.created_at,
            "restored": result.get("restored", []),
            "deleted": result.get("deleted", []),
            "not_restored": result.get("not_restored", {}),
            "old_head": plan.get("old_head"),
            "new_head": plan.get("new_head"),
            "rewound_messages": [],
        }
        if plan.get("conversation") and plan.get("old_head") and plan.get("old_head") != plan.get("new_head"):
            item["rewound_messages"] = [message_json(m) for m in _branch(store, session_id, plan)]
        out.append(item)
    return out


def _branch(store: Any, session_id: str, plan: dict[str, Any]) -> list[Any]:
    """Messages on the old head's path that are not on the new head's."""
    try:
        old = store.transcript.read(session_id, plan["old_head"])
        new_ids = {m.id for m in store.transcript.read(session_id, plan.get("new_head"))}
    except LookupError:
        return []
    return [m for m in old if m.id not in new_ids]


def print_rewinds(console: Any, rewinds: list[dict[str, Any]]) -> None:
    from rich.text import Text

    from cairn.graph.apps.cli.tui.fmt import visible

    if not rewinds:
        return
    console.print(Text("\nrewinds", style="bold"))
    for item in rewinds:
        files = len(item["restored"]) + len(item["deleted"])
        line = f"  {item['rewind_id']} {item['kind']} to {item['target']} · {files} file(s)"
        if item["not_restored"]:
            line += f", {len(item['not_restored'])} kept"
        if item["status"] != "done":
            line += " · interrupted (completed when the session is next opened)"
        console.print(Text(line), soft_wrap=True)
        for message in item["rewound_messages"]:
            text = " ".join(str(message.get("content") or "").split())[:100]
            calls = ", ".join(c["name"] for c in message.get("tool_calls", []))
            shown = text or (f"[{calls}]" if calls else "")
            console.print(
                Text(f"    (rewound) {message['role']} › {visible(shown)}", style="dim"), soft_wrap=True
            )
