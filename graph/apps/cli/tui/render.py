"""Live rendering of a run for people: the answer as Markdown, one line per tool call.

``Renderer.on_event`` is the Session's ``on_event`` callback (it runs on the worker thread
that drives the graph). On a TTY the answer is rendered as Markdown block by block as the
blocks close (``mdstream``), and a live region (``live``) shows the block being written, the
running tools with their elapsed seconds and last output line, and a spinner with a timer
while the model thinks; every line of it, and every tool line and hint, is cut to the
terminal width. Elsewhere (a pipe, ``NO_COLOR``, ``--plain``) the text is printed as it comes,
nothing is animated, and progress lines appear only with ``-v``.
"""

from __future__ import annotations

import threading
from typing import Any

from rich.text import Text

from cairn.graph.apps.cli.tui import fmt, person
from cairn.graph.apps.cli.tui.diffview import diff_text
from cairn.graph.apps.cli.tui.live import REFRESH_PER_SECOND, LiveState, Running, cut
from cairn.graph.apps.cli.tui.mdstream import BlockSplitter, markdown
from cairn.graph.core import events as ev

#: Output shown under a call before it is collapsed (lines); -v shows everything.
SHOWN_LINES = 6
#: Live tail of a running command (lines) with -v; one line otherwise.
TAIL_LINES = 6
#: Tools whose output people want to glance at; others show only their summary and size.
OUTPUT_TOOLS = frozenset({"bash", "bash_output"})
DIFF_TOOLS = frozenset({"edit_file", "write_file"})


class Renderer:
    def __init__(
        self,
        console: Any,
        *,
        verbose: bool = False,
        tokens: bool = True,
        markdown: bool | None = None,
        narration: bool = False,
    ) -> None:
        self.console = console
        self.verbose = verbose
        self.tokens = tokens  # headless text mode prints the answer itself, not the stream
        #: Headless text: the model's text between tool calls is printed here (the answer is not).
        self.narration = narration
        self.tty = bool(console.is_terminal)
        self.markdown = (self.tty and not console.no_color) if markdown is None else markdown
        self.unicode = (console.encoding or "").lower().startswith("utf")
        self._lock = threading.RLock()
        self._in_text = False
        self._streamed = False
        self._blocks = 0
        self._blank_lines = fmt.BlankLines()  # plain streamed answers: one blank line at most
        self._splitter = BlockSplitter()
        self._state = LiveState(tail_lines=TAIL_LINES if verbose else 1, unicode=self.unicode)
        self._live: Any = None
        self._order: list[str] = []  # the calls of the model's last message, in its order
        self._ended: dict[str, dict[str, Any]] = {}  # finished, waiting for earlier calls to print

    # -- the Session callback -------------------------------------------------------------
    def on_event(self, event: ev.Event) -> None:
        with self._lock:
            match event:
                case ev.Token(text=text):
                    self._on_token(text)
                case ev.Message(text=text, tool_calls=tool_calls, call_ids=call_ids):
                    self._on_message(text, tool_calls, call_ids)
                case ev.Compacted():
                    self._on_compacted(event)
                case ev.ToolStart(call=call):
                    self._on_tool_start(call)
                case ev.ToolProgress(call_id=call_id, line=line):
                    self._on_tool_progress(call_id, line)
                case ev.ToolEnd(call=call):
                    self._on_tool_end(call)
                case ev.SubagentStart(agent_id=agent_id, mode=mode, description=description):
                    self._on_subagent_start(agent_id, mode or "", description or "")
                case ev.SubagentEvent(child=ev.ToolEnd(call=call)) if call:
                    self._on_subagent_call(call)
                case ev.SubagentEnd(agent_id=agent_id, status=status):
                    self._on_subagent_end(agent_id, status)
                case ev.HookRan():
                    self._on_hook(event.payload())
                case (
                    ev.SubagentEvent()
                    | ev.Waiting()
                    | ev.DecisionRefused()
                    | ev.Notification()
                    | ev.Thought()
                ):
                    pass  # (headless ``--wait`` notes say what is waited for: ``headless.with_wait_notes``;
                    # notifications reach a person through the notifier, not this renderer)

    def _on_token(self, text: str) -> None:
        if not self.tokens or not text:
            return
        self._set_waiting(None)
        if not self._in_text:
            self.console.print()
            self._in_text = True
        self._streamed = True
        if not self.markdown:  # as written; no live region under a line still being written
            self._stop_live()
            text = self._blank_lines.feed(text)  # a run of blank lines shows as one
            if text:
                self.console.print(Text(fmt.visible(text)), end="", soft_wrap=True)
            return
        for block in self._splitter.feed(text):
            self._print_block(block)
        with self._state.lock:
            self._state.draft = self._splitter.draft
        self._refresh()

    def _on_message(self, text: str, tool_calls: int, call_ids: list[str]) -> None:
        if call_ids:  # tool lines print in this order, whatever order the calls end in
            self._order = [str(c) for c in call_ids]
            self._ended = {}
        if self.tokens and text and not self._streamed:
            self.console.print()
            self._in_text = True
            self._print_text(text)
        elif self.tokens and self.markdown:
            rest = self._splitter.flush()
            with self._state.lock:
                self._state.draft = ""
            if rest:
                self._print_block(rest)
        elif self.narration and text and tool_calls:
            self._print_text(text)  # headless: what the model said between tool calls
        self._end_text()
        self._streamed = False
        self._blocks = 0
        self._blank_lines = fmt.BlankLines()
        self._set_waiting("thinking" if tool_calls else None)

    def _on_compacted(self, event: ev.Compacted) -> None:
        from cairn.graph.apps.cli.tui.slash import compaction_line

        self._end_text()
        self.console.print(Text(compaction_line(event.payload()), style="dim"), soft_wrap=True)

    def _on_hook(self, run: dict[str, Any]) -> None:  # a hook that said something (issue 32)
        from cairn.graph.core.hooks.display import hook_line

        line = hook_line(run)
        if line is not None:
            self._end_text()
            self.line(Text(line, style="dim"))

    def _on_tool_start(self, call: dict[str, Any]) -> None:
        self._end_text()
        self._set_waiting(None)
        name = call["tool_name"]
        label = f"{name} {fmt.describe_args(name, call.get('arguments') or {}, 400)}".strip()
        if call["call_id"] not in self._order:
            self._order.append(call["call_id"])
        with self._state.lock:
            running = self._state.running
            running[call["call_id"]] = Running(label)
            rank = {cid: i for i, cid in enumerate(self._order)}  # calls run at once: model's order
            self._state.running = dict(sorted(running.items(), key=lambda item: rank.get(item[0], len(rank))))
        self._refresh()

    # Sub-agents: an indented line when one starts, per tool call it ends, and when it ends.
    def _on_subagent_start(self, agent_id: str, mode: str, description: str) -> None:
        self._end_text()
        self.line(Text(f"  ┌ sub-agent {fmt.visible(description)} ({mode}, {agent_id})", style="cyan"))

    def _on_subagent_call(self, call: dict[str, Any]) -> None:
        args = fmt.describe_args(call["tool_name"], call.get("arguments") or {})
        self.line(Text(fmt.visible(f"  │ {call['tool_name']} {args} · {call.get('status')}"), style="dim"))

    def _on_subagent_end(self, agent_id: str, status: str) -> None:
        self.line(Text(f"  └ sub-agent {agent_id}: {status}", style="cyan"))

    def _on_tool_progress(self, call_id: str, line: str) -> None:
        with self._state.lock:
            entry = self._state.running.get(call_id)
            if entry is not None:
                entry.tail.append(person.output(line.rstrip("\n")))
        if not self.tty and self.verbose:
            self.console.print(
                Text(f"    │ {fmt.visible(person.output(line.rstrip()))}", style="dim"), soft_wrap=True
            )

    def _on_tool_end(self, call: dict[str, Any]) -> None:
        cid = call["call_id"]
        with self._state.lock:
            self._state.running.pop(cid, None)
            idle = not self._state.running
        if cid not in self._order:
            self.print_call(call)  # never ran (denied by the policy, rejected): said at once
        else:
            self._ended[cid] = call
            while self._order and self._order[0] in self._ended:  # the model's order
                self.print_call(self._ended.pop(self._order.pop(0)))
        if idle:
            self._set_waiting("thinking")
        self._refresh()

    # -- pieces other modules use ------------------------------------------------------------
    def waiting(self, label: str = "thinking") -> None:
        """A spinner with elapsed seconds until the first event arrives (TTY only)."""
        with self._lock:
            self._set_waiting(label)

    def note(self, text: str, style: str = "dim") -> None:
        """A hint: one line, cut to the terminal width on a TTY."""
        with self._lock:
            self._end_text()
            self.line(Text(text, style=style))

    def line(self, text: Text) -> None:
        """Print ``text`` as lines that never wrap on a TTY (cut with an ellipsis)."""
        if not self.tty:
            self.console.print(text, soft_wrap=True)
            return
        for part in text.split("\n", allow_blank=True):
            self.console.print(cut(part, self.console.width), soft_wrap=True)

    def finish(self) -> None:
        """Close the live region (before a prompt, or before exiting on a second Ctrl-C)."""
        with self._lock:
            with self._state.lock:
                self._state.running.clear()
                self._state.waiting = None
                self._state.draft = ""
            for cid in list(self._order):  # calls still undecided stay in line for the next run
                if cid in self._ended:
                    self.print_call(self._ended.pop(cid))
                    self._order.remove(cid)
            for call in self._ended.values():
                self.print_call(call)
            self._ended.clear()
            self._stop_live()
            self._end_text()

    def print_answer(self, text: str) -> None:
        """A whole answer (``cairn show``, headless text on a TTY): Markdown, or as written."""
        with self._lock:
            self._print_text(text)

    def call_line(self, call: dict[str, Any]) -> Text:
        word = person.outcome(call)
        sym, style = fmt.symbol(word, self.unicode)
        name = call["tool_name"]
        line = Text("  ")
        line.append(sym, style=style)
        line.append(f" {name}", style="bold")
        about = fmt.describe_args(name, call.get("arguments") or {}, 400)
        if about:
            line.append(f" {about}")
        risk = call.get("risk")
        if risk:
            line.append("  ")
            line.append(risk, style=fmt.RISK_STYLE.get(risk, ""))
        summary = person.summary(call)
        if word in ("denied", "interrupted") and not summary.lower().startswith(word):
            summary = f"{word}: {summary}" if summary else word
        if summary:
            line.append(f"  → {fmt.one_line(summary, 400)}", style="dim" if style == "green" else style)
        label = person.decision_label(call)
        if label:
            line.append(f"  · {fmt.one_line(label, 100)}", style="dim")
        return line

    def print_call(self, call: dict[str, Any], note: str | None = None) -> None:
        with self._lock:
            self._end_text()
            self.line(self.call_line(call))
            if note:
                self.line(Text(f"    {note}", style="dim"))
            self._print_details(call)

    def _print_details(self, call: dict[str, Any]) -> None:
        name, status = call["tool_name"], call.get("status")
        metadata = call.get("metadata") or {}
        diff = metadata.get("diff")
        if name in DIFF_TOOLS and status == "success" and isinstance(diff, str) and diff:
            if not call.get("preview") or call.get("decision") == "edited" or self.verbose:
                self._block(diff, diff=True)  # (a previewed diff was just shown in the question)
            return
        if metadata.get("background") and status == "success":
            return  # "Started bg-1: ..." says it all; the rest tells the model how to read it
        if self.verbose and metadata.get("network"):
            self.line(Text(network_lines(metadata["network"]), style="dim"))
        text = person.details(call)
        if not text.strip():
            return
        if name in OUTPUT_TOOLS or status != "success" or self.verbose:
            self._block(text, tail=name in OUTPUT_TOOLS)  # a command's verdict is at its end
        elif len(text) > 200:
            self.console.print(Text(f"    ({fmt.size_note(text)} collapsed)", style="dim italic"))

    def _block(self, text: str, *, diff: bool = False, tail: bool = False) -> None:
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
        if note is not None and tail:
            self.console.print(note)
        body = diff_text(shown, indent="    ") if diff else Text("\n".join(f"    {x}" for x in shown), "dim")
        if self.verbose:
            self.console.print(body, soft_wrap=True)  # everything, wrapped by the terminal
        else:
            self.line(body)  # a glance: each line cut to the width
        if note is not None and not tail:
            self.console.print(note)

    # -- internals ---------------------------------------------------------------------------
    def _print_text(self, text: str) -> None:
        if self.markdown:
            self.console.print(markdown(fmt.visible(text)))
        else:
            self.console.print(Text(fmt.visible(fmt.squeeze_blank_lines(text))), soft_wrap=True)

    def _print_block(self, block: str) -> None:
        if self._blocks:
            self.console.print()
        self._blocks += 1
        self.console.print(markdown(fmt.visible(block)))

    def _end_text(self) -> None:
        if self._in_text:
            if self.markdown and self.tokens:
                rest = self._splitter.flush()
                with self._state.lock:
                    self._state.draft = ""
                if rest:
                    self._print_block(rest)
            elif not self.markdown:
                self.console.print()
            self._in_text = False
            self._blocks = 0

    def _set_waiting(self, label: str | None) -> None:
        import time

        with self._state.lock:
            if label is None:
                self._state.waiting = None
            elif self._state.waiting is None or self._state.waiting[0] != label:
                self._state.waiting = (label, time.monotonic())
        self._refresh()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _refresh(self) -> None:
        if not self.tty or (self._in_text and not self.markdown):
            return
        if self._live is None:
            if self._state.empty():
                return
            from rich.live import Live

            self._live = Live(
                self._state,
                console=self.console,
                transient=True,
                refresh_per_second=REFRESH_PER_SECOND,
                auto_refresh=True,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start()
        else:  # (kept running while empty: stopping and restarting it would flicker)
            self._live.refresh()


def network_lines(requests: list[dict[str, Any]]) -> str:
    """A sandboxed command's requests through the egress proxy, one line each (``-v``)."""
    lines = []
    for r in requests:
        what = "allowed" if r.get("allowed") else f"refused: {r.get('reason', '')}"
        sizes = f" · {r.get('sent', 0)} B out, {r.get('received', 0)} B in" if r.get("allowed") else ""
        lines.append(f"    network: {r.get('method')} {r.get('host')}:{r.get('port')} {what}{sizes}")
    return "\n".join(lines)
