"""Live rendering of a run for people: streamed text, one line per tool call, collapsed output.

``Renderer.on_event`` is the Session's ``on_event`` callback (it runs on the worker thread
that drives the graph).  On a TTY, running tools show their last output lines in a transient
live region that disappears when the call ends, leaving the one-line summary; elsewhere
nothing is animated and progress lines appear only with ``-v``.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from rich.text import Text

from cairn.graph.cli import fmt
from cairn.graph.cli.diffview import diff_text

#: Output shown under a call before it is collapsed (lines); -v shows everything.
SHOWN_LINES = 6
#: Live tail of a running command (lines).
TAIL_LINES = 6
#: Tools whose output people want to glance at; others show only their summary and size.
OUTPUT_TOOLS = frozenset({"bash", "bash_output"})
DIFF_TOOLS = frozenset({"edit_file", "write_file"})


class Renderer:
    def __init__(self, console: Any, *, verbose: bool = False, tokens: bool = True) -> None:
        self.console = console
        self.verbose = verbose
        self.tokens = tokens  # headless text mode prints the answer itself, not the stream
        self.tty = bool(console.is_terminal)
        self.unicode = (console.encoding or "").lower().startswith("utf")
        self._lock = threading.RLock()
        self._in_text = False
        self._streamed = False
        self._running: dict[str, tuple[str, deque[str]]] = {}
        self._live: Any = None
        self._status: Any = None

    # -- the Session callback -------------------------------------------------------------
    def on_event(self, kind: str, payload: dict[str, Any]) -> None:
        with self._lock:
            self._stop_status()
            handler = getattr(self, f"_on_{kind}", None)
            if handler is not None:
                handler(**payload)

    def _on_token(self, text: str = "", **_: Any) -> None:
        if not self.tokens or not text:
            return
        if not self._in_text:
            self.console.print()
            self._in_text = True
        self._streamed = True
        self.console.print(Text(fmt.visible(text)), end="", soft_wrap=True)

    def _on_message(self, text: str = "", **_: Any) -> None:
        if self.tokens and text and not self._streamed:
            self.console.print()
            self.console.print(Text(fmt.visible(text)), soft_wrap=True)
        self._end_text()
        self._streamed = False

    def _on_tool_start(self, call: dict[str, Any], **_: Any) -> None:
        self._end_text()
        label = f"{call['tool_name']} {fmt.describe_args(call['tool_name'], call.get('arguments') or {})}"
        self._running[call["call_id"]] = (label.strip(), deque(maxlen=TAIL_LINES))
        self._refresh_live()

    def _on_tool_progress(self, call_id: str = "", line: str = "", **_: Any) -> None:
        entry = self._running.get(call_id)
        if entry is not None:
            entry[1].append(line.rstrip("\n"))
            self._refresh_live()
        if not self.tty and self.verbose:
            self.console.print(Text(f"    │ {fmt.visible(line.rstrip())}", style="dim"), soft_wrap=True)

    def _on_tool_end(self, call: dict[str, Any], **_: Any) -> None:
        self._running.pop(call["call_id"], None)
        self._refresh_live()
        self.print_call(call)

    # -- pieces other modules use ------------------------------------------------------------
    def waiting(self, label: str = "thinking") -> None:
        """A spinner until the first event arrives (TTY only)."""
        if not self.tty:
            return
        with self._lock:
            self._stop_status()
            self._status = self.console.status(Text(label, style="dim"), spinner="dots")
            self._status.start()

    def note(self, text: str, style: str = "dim") -> None:
        with self._lock:
            self._stop_status()
            self._end_text()
            self.console.print(Text(text, style=style), soft_wrap=True)

    def finish(self) -> None:
        """Close live regions (before a prompt, or before exiting on a second Ctrl-C)."""
        with self._lock:
            self._stop_status()
            self._running.clear()
            self._refresh_live()
            self._end_text()

    def call_line(self, call: dict[str, Any]) -> Text:
        sym, style = fmt.symbol(call.get("status", "pending"), self.unicode)
        name = call["tool_name"]
        line = Text("  ")
        line.append(sym, style=style)
        line.append(f" {name}", style="bold")
        about = fmt.describe_args(name, call.get("arguments") or {})
        if about:
            line.append(f" {about}")
        risk = call.get("risk")
        if risk:
            line.append("  ")
            line.append(risk, style=fmt.RISK_STYLE.get(risk, ""))
        summary = call.get("display") or call.get("error_msg") or ""
        if summary:
            line.append(f"  → {fmt.one_line(summary, 120)}", style="dim" if style == "green" else style)
        decision = call.get("decision")
        if decision and decision not in ("approved", "auto-retried"):
            line.append(f"  ({fmt.one_line(decision, 60)})", style="dim")
        return line

    def print_call(self, call: dict[str, Any], note: str | None = None) -> None:
        with self._lock:
            self._end_text()
            for text in self.call_texts(call, note):
                self.console.print(text, soft_wrap=True)

    def call_texts(self, call: dict[str, Any], note: str | None = None) -> list[Text]:
        """What ``print_call`` prints, one Text per block (``cairn show`` joins them into one print)."""
        texts = [self.call_line(call)]
        if note:
            texts.append(Text(f"    {note}", style="dim"))
        texts.extend(self._details(call))
        return texts

    def _details(self, call: dict[str, Any]) -> list[Text]:
        name, status = call["tool_name"], call.get("status")
        diff = (call.get("metadata") or {}).get("diff")
        if name in DIFF_TOOLS and status == "success" and isinstance(diff, str) and diff:
            if not call.get("preview") or call.get("decision") == "edited" or self.verbose:
                return self._block(diff, diff=True)  # (a previewed diff was just shown in the question)
            return []
        text = fmt.result_text(call) if status == "success" else (call.get("error_msg") or "")
        if not text.strip():
            return []
        if name in OUTPUT_TOOLS or status != "success" or self.verbose:
            return self._block(text, tail=name in OUTPUT_TOOLS)  # a command's verdict is at its end
        if len(text) > 200:
            return [Text(f"    ({fmt.size_note(text)} collapsed)", style="dim italic")]
        return []

    def _block(self, text: str, *, diff: bool = False, tail: bool = False) -> list[Text]:
        """Up to SHOWN_LINES lines (the last ones with ``tail``); the rest collapsed with its size."""
        lines = fmt.visible(text).rstrip("\n").splitlines()
        keep = len(lines) if self.verbose else SHOWN_LINES
        shown = lines[-keep:] if tail else lines[:keep]
        hidden = lines[: len(lines) - len(shown)] if tail else lines[len(shown) :]
        note = None
        if hidden:
            plural = "s" if len(hidden) != 1 else ""
            where = "earlier" if tail else "more"
            note = Text(
                f"    … {len(hidden)} {where} line{plural} collapsed ({fmt.size_note(chr(10).join(hidden))})",
                style="dim italic",
            )
        body = diff_text(shown, indent="    ") if diff else Text("\n".join(f"    {x}" for x in shown), "dim")
        if note is None:
            return [body]
        return [note, body] if tail else [body, note]

    def turn_footer(self, usage: dict[str, int], elapsed_s: float) -> None:
        self.note(f"  {fmt.usage_line(usage, elapsed_s)}")

    # -- internals ---------------------------------------------------------------------------
    def _end_text(self) -> None:
        if self._in_text:
            self.console.print()
            self._in_text = False

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _refresh_live(self) -> None:
        if not self.tty:
            return
        if not self._running:
            if self._live is not None:
                self._live.stop()
                self._live = None
            return
        renderable = self._live_view()
        if self._live is None:
            from rich.live import Live

            self._live = Live(
                renderable, console=self.console, transient=True, refresh_per_second=10, auto_refresh=True
            )
            self._live.start()
        else:
            self._live.update(renderable)

    def _live_view(self) -> Text:
        view = Text()
        for index, (label, tail) in enumerate(self._running.values()):
            if index:
                view.append("\n")
            view.append("  ● ", style="cyan")
            view.append(fmt.one_line(label, 100), style="bold")
            view.append("  (Ctrl-C stops it)", style="dim")
            for line in tail:
                view.append("\n    " + fmt.one_line(line, 150), style="dim")
        return view
