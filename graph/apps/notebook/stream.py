"""``CellStream``: a run shown live in a notebook cell (display handles) or as plain lines."""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from typing import Any, TextIO

from cairn.graph.core import events as ev
from cairn.graph.core.state import ToolCallInfo
from cairn.graph.display.parts import (
    badge,
    call_details_html,
    call_status,
    details,
    esc,
    images_html,
    risk_badge,
    status_text,
    summary_line,
)

_TEXT_STYLE = "white-space:pre-wrap;margin:4px 0"


def in_kernel() -> bool:
    """True inside a Jupyter (ipykernel) kernel; never imports IPython itself."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and hasattr(shell, "kernel")


class _View:
    """An HTML view with a plain-text twin (what nbclient, consoles and logs see)."""

    def __init__(self, html: str, text: str) -> None:
        self.html, self.text = html, text

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


class CellStream:
    """An ``on_event`` callback (``cairn.graph.core.events``) that shows a run in the cell as it happens."""

    def __init__(
        self,
        *,
        rich: bool | None = None,
        progress_lines: int = 8,
        min_interval: float = 0.1,
        file: TextIO | None = None,
    ) -> None:
        self.rich = in_kernel() if rich is None else rich
        self.progress_lines = progress_lines
        self.min_interval = min_interval
        self.file = file
        self._lock = threading.Lock()
        self._text = ""
        self._text_handle: Any = None
        self._printed_tokens = False
        self._last_update = 0.0
        self._tools: dict[str, tuple[Any, deque[str], ToolCallInfo]] = {}

    def __call__(self, event: ev.Event | str, payload: dict[str, Any] | None = None) -> None:
        """Show ``event``; an old-style ``(kind, payload)`` call is accepted too."""
        if isinstance(event, str):
            try:
                event = ev.from_payload(event, payload or {})
            except (KeyError, TypeError):  # an unknown kind or an incomplete payload: not shown
                return
        with self._lock:
            match event:
                case ev.Token(text=text):
                    self._on_token(text)
                case ev.Message(text=text):
                    self._on_message(text)
                case ev.Compacted():
                    self._on_compacted(event)
                case ev.ToolStart(call=call):
                    self._on_tool_start(call)
                case ev.ToolProgress(call_id=call_id, line=line):
                    self._on_tool_progress(call_id, line)
                case ev.ToolEnd(call=call):
                    self._on_tool_end(call)
                case ev.SubagentStart(agent_id=agent_id, mode=mode, description=description):
                    self._print(f"┌ sub-agent {description or ''} ({mode}, {agent_id})")
                case ev.SubagentEvent(child=ev.ToolEnd(call=call)) if isinstance(call, dict):
                    self._on_subagent_call(call)
                case ev.SubagentEnd(agent_id=agent_id, status=status):
                    self._print(f"└ sub-agent {agent_id}: {status}")
                case ev.HookRan():
                    self._on_hook(event.payload())
                case ev.Notification():
                    self._on_notification(event.payload())
                case ev.SubagentEvent() | ev.Waiting() | ev.DecisionRefused() | ev.Thought():
                    pass  # the pause shows in the RunResult the cell gets back

    # -- events --------------------------------------------------------------------------
    def _on_token(self, text: str) -> None:
        if not self.rich:
            self._print(text, end="")
            self._printed_tokens = True
            return
        self._text += text
        if time.monotonic() - self._last_update >= self.min_interval:
            self._show_text()

    def _on_message(self, text: str) -> None:
        if not self.rich:
            if self._printed_tokens:
                self._print("")
            elif text:
                self._print(text)
            self._printed_tokens = False
            return
        if text:
            self._text = text
            self._show_text()
        self._text, self._text_handle = "", None  # the next model turn gets its own block

    def _on_compacted(self, event: ev.Compacted) -> None:
        if event.skipped:
            line = f"(nothing compacted: {event.reason or ''})"
        else:
            line = (
                f"(compacted: {event.summarized} earlier messages summarized by "
                f"{'the model' if event.source == 'model' else 'the fallback'}; prompt "
                f"~{event.tokens_before:,} → ~{event.tokens_after:,} tokens)"
            )
        self._print(line)

    def _on_hook(self, payload: dict[str, Any]) -> None:  # -- hooks (issue 32)
        from cairn.graph.core.hooks.display import hook_line

        line = hook_line(payload)
        if line is not None:
            self._print(f"({line})")

    def _on_notification(self, payload: dict[str, Any]) -> None:  # -- hooks (issue 32): a badge
        message = str(payload.get("message") or "")
        if not self.rich:
            self._print(f"[notification] {message}")
            return
        color = "#b45309" if payload.get("notification_type") == "permission_prompt" else "#2563eb"
        style = f"display:inline-block;padding:2px 8px;border-radius:9px;background:{color};color:white"
        self._display(
            _View(
                f'<span class="cairn-notification" style="{style}">🔔 {esc(message)}</span>', f"🔔 {message}"
            )
        )

    def _on_tool_start(self, state: dict[str, Any]) -> None:
        call = ToolCallInfo.model_validate({**state, "status": "executing"})
        if not self.rich:
            self._print(f"{status_text('executing')} {call.tool_name}: {summary_line(call)}")
            return
        handle = self._display(self._call_view(call, []))
        self._tools[call.call_id] = (handle, deque(maxlen=self.progress_lines), call)

    def _on_tool_progress(self, call_id: str, line: str) -> None:
        line = line.rstrip("\n")
        if not self.rich:
            self._print(f"  │ {line}")
            return
        entry = self._tools.get(call_id)
        if entry is None:
            return
        handle, lines, call = entry
        lines.append(line)
        if time.monotonic() - self._last_update >= self.min_interval:
            self._update(handle, self._call_view(call, list(lines)))

    # Sub-agents: one indented line each when they start, per tool call they finish, and at the end.
    def _on_subagent_call(self, state: dict[str, Any]) -> None:
        call = ToolCallInfo.model_validate(state)
        self._print(f"│   {status_text(call.status)} {call.tool_name}: {summary_line(call)}")

    def _on_tool_end(self, state: dict[str, Any]) -> None:
        call = ToolCallInfo.model_validate(state)
        if not self.rich:
            self._print(f"{status_text(call_status(call))} {call.tool_name}: {summary_line(call)}")
            return
        entry = self._tools.pop(call.call_id, None)
        view = self._call_view(call, [], final=True)
        if entry is None:
            self._display(view)
        else:
            self._update(entry[0], view)

    # -- rendering -------------------------------------------------------------------------
    def _call_view(self, call: ToolCallInfo, lines: list[str], *, final: bool = False) -> _View:
        head = (
            f"{badge(call_status(call))} {risk_badge(call.risk)} <code>{esc(call.tool_name)}</code> "
            f"{esc(summary_line(call))}"
        )
        text = f"{status_text(call_status(call))} {call.tool_name}: {summary_line(call)}"
        if final:
            return _View(f"<div>{details(head, call_details_html(call))}{images_html(call)}</div>", text)
        tail = "\n".join(lines)
        body = f'<pre style="{_TEXT_STYLE};font-size:12px;color:#6b7280">{esc(tail)}</pre>' if lines else ""
        return _View(f"<div>{head}{body}</div>", text + ("\n" + tail if tail else ""))

    def _show_text(self) -> None:
        view = _View(f'<div class="cairn-stream" style="{_TEXT_STYLE}">{esc(self._text)}</div>', self._text)
        if self._text_handle is None:
            self._text_handle = self._display(view)
        else:
            self._update(self._text_handle, view)

    def _display(self, view: _View) -> Any:
        from IPython.display import display

        self._last_update = time.monotonic()
        return display(view, display_id=True)

    def _update(self, handle: Any, view: _View) -> None:
        self._last_update = time.monotonic()
        if handle is not None:
            handle.update(view)

    def _print(self, text: str, end: str = "\n") -> None:
        print(text, end=end, file=self.file or sys.stdout, flush=True)
