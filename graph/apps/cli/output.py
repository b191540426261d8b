"""Headless output: ``text`` (answer on stdout, progress on stderr), ``json``, ``stream-json``.

json prints one object at the end (``RunResult.to_json()``); stream-json prints one JSON
object per line as things happen — ``{"type": "start"}``, then ``token``, ``message``,
``tool_start``, ``tool_progress``, ``tool_end`` events, ``approval_required`` when the run
pauses, and finally ``{"type": "result", ...}`` with the same keys as json.  Hints for people
(how to resume) always go to stderr; so do, in text mode, the tool lines and the model's
narration between them.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO

from cairn.graph.apps.cli.tui import fmt
from cairn.graph.core import events as ev
from cairn.graph.session.result import USAGE_KEYS
from cairn.tools.file_ops.names import escape_data, escape_text

#: Keys dropped from call dicts in stream-json (person-facing rich data, as in json output).
_DROP = ("metadata",)


class HeadlessOutput:
    def __init__(
        self, output_format: str, *, verbose: bool = False, plain: bool = False, out: TextIO | None = None
    ) -> None:
        self.format = output_format
        self.out = out or sys.stdout
        self.plain = plain
        self._lock = threading.Lock()
        self.renderer: Any = None
        if output_format == "text":
            from cairn.graph.apps.cli.tui.render import Renderer
            from cairn.graph.apps.cli.tui.term import make_console

            # stderr: tool lines and the model's narration between them, in the model's order.
            console = make_console(sys.stderr, plain=plain)
            self.renderer = Renderer(console, verbose=verbose, tokens=False, narration=True)

    def start(self, session: Any) -> None:
        if self.format == "stream-json":
            self._line(
                {
                    "type": "start",
                    "session_id": session.id,
                    "workspace": str(session.workspace.root),
                    "mode": session.mode,
                }
            )

    def on_event(self, event: ev.Event) -> None:
        if self.format == "stream-json":
            self._line(stream_json_line(event))
        elif self.renderer is not None:
            self.renderer.on_event(event)

    def note(self, text: str) -> None:
        if self.renderer is not None:
            self.renderer.note(text)

    def finish(self, result: Any, resume_hint: list[str]) -> None:
        """Print the outcome; ``resume_hint`` lines go to stderr when the run paused or failed."""
        if self.renderer is not None:
            self.renderer.finish()
        if self.format == "json":
            self._write(json.dumps(escape_data(result.to_json()), ensure_ascii=False) + "\n")
        elif self.format == "stream-json":
            doc = result.to_json()
            if result.pending:  # the run paused: a reader waiting for the result learns why first
                self._line(
                    {
                        "type": "approval_required",
                        "session_id": doc["session_id"],
                        "status": doc["status"],
                        "pending": doc["pending"],
                        "resume": resume_hint,
                    }
                )
            self._line({"type": "result", **doc})
        else:
            if result.text:
                self._answer(result.text)
            self.renderer.note(f"  {fmt.usage_line(result.usage, result.elapsed_s)}")
            if result.status == "error":
                print(f"cairn: error: {result.error}", file=sys.stderr)
        for line in resume_hint:
            print(line, file=sys.stderr)
        sys.stderr.flush()

    def fail(self, session: Any, message: str, result: Any, resume_hint: list[str]) -> None:
        """A usage error found while running: json gets the result object with ``error`` set
        (the run's, if one ran before the error, else where the session stands)."""
        if self.renderer is not None:
            self.renderer.finish()
        doc = result.to_json() if result is not None else _standing(session)
        doc["error"] = message
        if self.format == "json":
            self._write(json.dumps(escape_data(doc), ensure_ascii=False, default=str) + "\n")
        elif self.format == "stream-json":
            self._line({"type": "result", **doc})
        for line in resume_hint:
            print(line, file=sys.stderr)
        sys.stderr.flush()

    def _answer(self, text: str) -> None:
        """The answer on stdout: rendered Markdown on a TTY with colors, else as written."""
        from cairn.graph.apps.cli.tui.term import is_tty

        if self.out is sys.stdout and is_tty(sys.stdout) and not self.plain:
            from cairn.graph.apps.cli.tui.render import Renderer
            from cairn.graph.apps.cli.tui.term import make_console

            console = make_console(sys.stdout)
            if not console.no_color:
                Renderer(console).print_answer(text)
                return
        self._write(escape_text(text).rstrip("\n") + "\n")

    def _line(self, obj: dict[str, Any]) -> None:
        self._write(json.dumps(escape_data(obj), ensure_ascii=False, default=str) + "\n")

    def _write(self, text: str) -> None:
        with self._lock:
            self.out.write(text)
            self.out.flush()


def stream_json_line(event: ev.Event) -> dict[str, Any]:
    """One stream-json object: ``{"type": kind, **payload}``; every kind is written."""
    line = {"type": event.kind, **event.payload()}
    match event:
        case ev.ToolStart() | ev.ToolEnd() | ev.SubagentEvent():
            if isinstance(line.get("call"), dict):
                line["call"] = {k: v for k, v in line["call"].items() if k not in _DROP}
                if isinstance(event, ev.ToolStart):  # the Session says "pending"; it is running now
                    line["call"]["status"] = "executing"
        case (
            ev.Token()
            | ev.Thought()
            | ev.Message()
            | ev.ToolProgress()
            | ev.Compacted()
            | ev.SubagentStart()
            | ev.SubagentEnd()
            | ev.Waiting()
            | ev.DecisionRefused()
            | ev.HookRan()
            | ev.Notification()
        ):
            pass  # written as they are
    return line


def _standing(session: Any) -> dict[str, Any]:
    """A result-shaped object for a session where nothing ran."""
    return {
        "session_id": session.id,
        "status": session.status,
        "result": "",
        "pending": [c.model_dump(mode="json", exclude={"metadata"}) for c in session.pending()],
        "tool_calls": [],
        "usage": dict.fromkeys(USAGE_KEYS, 0),
        "error": None,
        "elapsed_s": 0.0,
    }


def pause_hint(result: Any, resume: Any, *, in_memory: bool = False) -> list[str]:
    """What a person reads when a headless run stops short: the session id and exact commands.

    ``resume(*extra)`` builds ``cairn resume ID [flags] *extra``.  An in-memory session
    (``--db :memory:``) is gone when cairn exits, so it gets no commands that cannot work.
    """
    sid = result.session_id
    if in_memory and result.status != "done":
        return [
            f"session {sid} stopped ({result.status}); it was in memory only (--db :memory:) "
            "and is gone now: nothing to resume"
        ]
    if result.status == "awaiting_approval":
        lines = [f"paused: {len(result.pending)} call(s) await approval in session {sid}"]
        lines += [pending_line(c) for c in result.pending]
        stopped = any(c.status == "interrupted" for c in result.pending)
        asking = [c.call_id for c in result.pending if c.status == "awaiting_approval"]
        # `all` works whatever the number of calls; an id only when it is the only one asking.
        target = asking[0] if len(asking) == 1 else "all"
        approve = ["--approve", "all", *(["--retry", "all"] if stopped else [])]
        reject = ["--reject", f"{target}:what to do instead", *(["--cancel", "all"] if stopped else [])]
        lines += ["approve or reject with:", f"  {resume(*approve)}", f"  {resume(*reject)}"]
        return lines
    if result.status == "interrupted":
        lines = [f"paused: {len(result.pending)} call(s) were interrupted in session {sid}"]
        lines += [pending_line(c) for c in result.pending]
        return [
            *lines,
            "run them again or drop them with:",
            f"  {resume('--retry', 'all')}",
            f"  {resume('--cancel', 'all')}",
        ]
    if result.status in ("error", "max_steps", "loop", "incomplete", "no_answer", "budget"):
        why = {"error": "failed", "max_steps": "stopped at --max-steps"}.get(
            result.status, f"paused: {result.error}"
        )
        return [f"session {sid} {why}; nothing is lost. Continue with:", f"  {resume('-p')}"]
    return []


def pending_line(call: Any) -> str:
    about = fmt.describe_args(call.tool_name, call.arguments, 70)
    why = call.reason if call.status == "awaiting_approval" else call.error_msg
    risk = f" {call.risk}" if call.risk else ""
    whose = f"[sub-agent: {fmt.one_line(call.agent or call.agent_id, 40)}] " if call.agent_id else ""
    return f"  {call.call_id}  {whose}{call.tool_name} {about}{risk}" + (
        f" — {fmt.one_line(why, 90)}" if why else ""
    )
