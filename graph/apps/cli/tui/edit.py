"""Editing a gated call's arguments before it runs: in $VISUAL/$EDITOR, or inline.

Inline, a bash call edits just its command line (prefilled, so a small fix is a few keys);
other tools edit their arguments as JSON.  ``None`` means "ask again" (cancelled or invalid).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from typing import Any

from rich.text import Text


def edit_arguments(call: Any, prompter: Any, console: Any) -> dict[str, Any] | None:
    args = dict(call.arguments)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if editor and prompter.tty:
        try:
            return _in_editor(editor, args, console)
        except (OSError, ValueError) as exc:  # not installed, not executable, unbalanced quotes
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            console.print(Text(f"    cannot run the editor {editor!r} ({why}): editing inline", "yellow"))
    if call.tool_name == "bash" and isinstance(args.get("command"), str) and "\n" not in args["command"]:
        command = prompter.line("    new command: ", prefill=args["command"]).strip()
        if not command:
            console.print(Text("    (empty: not changed)", style="dim"))
            return None
        return {**args, "command": command}
    raw = prompter.line(
        "    new arguments (JSON): ", prefill=json.dumps(args, ensure_ascii=False, default=str)
    ).strip()
    return _parse(raw, console)


def _in_editor(editor: str, args: dict[str, Any], console: Any) -> dict[str, Any] | None:
    """Raises OSError/ValueError when the editor cannot be started (the caller edits inline)."""
    command = shlex.split(editor)
    if not command:
        raise ValueError("empty")
    with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="cairn-args-", delete=False) as fh:
        json.dump(args, fh, indent=2, ensure_ascii=False, default=str)
        fh.write("\n")
        path = fh.name
    try:
        code = subprocess.call([*command, path])
        if code != 0:
            console.print(Text(f"    editor exited with {code}: not changed", style="yellow"))
            return None
        with open(path, encoding="utf-8") as fh:
            return _parse(fh.read(), console)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _parse(raw: str, console: Any) -> dict[str, Any] | None:
    if not raw.strip():
        console.print(Text("    (empty: not changed)", style="dim"))
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        console.print(Text(f"    not valid JSON ({exc.msg}); try again", style="red"))
        return None
    if not isinstance(value, dict):
        console.print(Text("    arguments must be a JSON object; try again", style="red"))
        return None
    return value
