"""How a hook run reads for people: one line for the CLI, ``cairn show`` and notebooks."""

from __future__ import annotations

from typing import Any

MAX_LINE = 160
MAX_HOOK = 48


def hook_line(run: dict[str, Any], *, quiet_ok: bool = True) -> str | None:
    """``hook PreToolUse user:./check.py: deny (no edits under generated/)``; None for a quiet
    success when ``quiet_ok`` (a hook that said nothing is not worth a line while running)."""
    event, hook = run.get("event", "?"), str(run.get("hook", "?"))
    source, _, command = hook.partition(":")
    if len(command) > MAX_HOOK:  # the command's end names the script
        hook = f"{source}:…{command[-(MAX_HOOK - 1) :]}"
    if run.get("error"):
        what = f"error: {run['error']}"
    elif run.get("ignored"):
        what = f"{run.get('decision')} ignored: {run['ignored']}"
    elif run.get("decision"):
        what = str(run["decision"]) + (f" ({run['reason']})" if run.get("reason") else "")
    elif run.get("stop"):
        what = f"stop ({run.get('stop_reason') or ''})"
    elif run.get("context") or run.get("updated_input"):
        what = "added context" if run.get("context") else "changed the input"
    elif run.get("system_message"):
        what = "ok"
    elif quiet_ok:
        return None
    else:
        what = "ok"
    if run.get("system_message"):
        what = f"{what} · {run['system_message']}"
    text = f"hook {event} {hook}: {what}"
    text = " ".join(text.split())
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"
