"""Rich display for notebooks: run results, tool-call tables and approval requests.

``RunResult._repr_html_``/``_repr_markdown_`` call ``run_result_html``/``run_result_markdown``;
``calls_table(calls)`` and ``show_pending(session)`` return objects that Jupyter renders the
same way, with a plain-text ``repr`` for terminals. Tool and model text is always escaped
(see ``cairn.graph.display.parts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Protocol

from cairn.graph.display.answer import answer_html
from cairn.graph.display.markdown import md_cell, md_code, md_inline, md_text
from cairn.graph.display.parts import (
    approval_html,
    approval_markdown,
    badge,
    call_details_html,
    call_status,
    details,
    esc,
    images_html,
    images_markdown,
    risk_badge,
    status_text,
    summary_line,
)
from cairn.tools.file_ops.names import escape_text

if TYPE_CHECKING:
    from cairn.graph.core.state import ToolCallInfo


class RunResult(Protocol):
    """The fields of ``cairn.RunResult`` these views read (the session layer sits above)."""

    session_id: str
    status: str
    text: str
    pending: list[ToolCallInfo]
    tool_calls: list[ToolCallInfo]
    usage: dict[str, int]
    error: str | None
    elapsed_s: float


class HasPending(Protocol):
    """A ``Session``, as far as ``show_pending`` needs one."""

    def pending(self) -> list[ToolCallInfo]: ...


__all__ = [
    "CallsTable",
    "PendingView",
    "ToolCallTable",
    "calls_table",
    "run_result_html",
    "run_result_markdown",
    "run_result_text",
    "show_pending",
]


def _usage_line(result: RunResult) -> str:
    usage = result.usage or {}
    bits = [f"session {result.session_id[:8]}"]
    if usage.get("model_calls"):
        bits.append(f"{usage['model_calls']} model call{'s' if usage['model_calls'] != 1 else ''}")
    if usage.get("input_tokens") or usage.get("output_tokens"):
        bits.append(f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens")
    from cairn.graph.core.cost.report import cost_text  # issue 34 hook-in: the run's cost

    cost = cost_text(usage)
    if cost is not None and usage.get("model_calls"):
        bits.append(cost)
    bits.append(f"{result.elapsed_s:.1f} s")
    return " · ".join(bits)


def run_result_html(result: RunResult) -> str:
    parts = [f"<div>{badge(result.status)} <b>cairn</b> <small>{esc(_usage_line(result))}</small></div>"]
    if result.error:
        parts.append(f'<div style="color:#991b1b"><b>error:</b> {esc(result.error)}</div>')
    if result.text:
        style = "margin:6px 0;padding:2px 8px;border-left:3px solid #16a34a"
        parts.append(f'<div class="cairn-answer" style="{style}">{answer_html(result.text)}</div>')
    parts.extend(images_html(c, caption=True) for c in result.tool_calls)  # shown, not collapsed
    if result.pending:
        parts.append(f"<div><b>Waiting for you ({len(result.pending)})</b></div>")
        parts.extend(approval_html(c) for c in result.pending)
    if result.tool_calls:
        table = CallsTable(result.tool_calls, show_images=False)._repr_html_()
        parts.append(details(f"tool calls ({len(result.tool_calls)})", table, open_=not result.text))
    return '<div class="cairn-run">' + "".join(parts) + "</div>"


def run_result_markdown(result: RunResult) -> str:
    parts = [f"**{status_text(result.status)}** · {md_inline(_usage_line(result))}"]
    if result.error:
        parts.append(f"**error:** {md_inline(result.error)}")
    if result.text:
        parts.append(md_text(result.text))
    if result.pending:
        parts.append(f"**Waiting for you ({len(result.pending)})**")
        parts.extend(approval_markdown(c) for c in result.pending)
    if result.tool_calls:
        parts.append(CallsTable(result.tool_calls)._repr_markdown_())
    return escape_text("\n\n".join(parts))


def run_result_text(result: RunResult) -> str:
    """Plain text for terminals and logs (``print(cairn.graph.display.run_result_text(r))``)."""
    lines = [f"{status_text(result.status)} · {_usage_line(result)}"]
    if result.error:
        lines.append(f"error: {result.error}")
    if result.tool_calls:
        lines.append(repr(CallsTable(result.tool_calls)))
    if result.pending:
        lines.append(repr(PendingView(result.pending)))
    if result.text:
        lines.append(result.text)
    return escape_text("\n".join(lines))


class CallsTable:
    """A list of tool calls that renders as a table in Jupyter (and as text elsewhere). Images the
    calls returned are shown under their row's summary, outside its collapsed details."""

    def __init__(self, calls: Iterable[ToolCallInfo], *, show_images: bool = True) -> None:
        self.calls = list(calls)
        self.show_images = show_images

    def __len__(self) -> int:
        return len(self.calls)

    def __iter__(self) -> Iterator[ToolCallInfo]:
        return iter(self.calls)

    def __getitem__(self, index: int) -> ToolCallInfo:
        return self.calls[index]

    def _repr_html_(self) -> str:
        if not self.calls:
            return "<div><i>no tool calls</i></div>"
        head = "".join(
            f'<th style="text-align:left">{h}</th>' for h in ("status", "tool", "risk", "call", "id")
        )
        td = '<td style="text-align:left">'  # JupyterLab's CSS right-aligns cells otherwise
        rows = [
            f'<tr style="vertical-align:top">{td}{badge(call_status(c))}</td>{td}<code>{esc(c.tool_name)}</code></td>'
            f"{td}{risk_badge(c.risk)}</td>{td}{details(esc(summary_line(c)), call_details_html(c))}"
            f"{images_html(c) if self.show_images else ''}</td>"
            f"{td}<small><code>{esc(c.call_id)}</code></small></td></tr>"
            for c in self.calls
        ]
        return (
            '<table class="cairn-calls" style="text-align:left">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )

    def _repr_markdown_(self) -> str:
        if not self.calls:
            return "_no tool calls_"
        rows = ["| status | tool | risk | call | id |", "|---|---|---|---|---|"]
        for c in self.calls:
            cells = (md_cell(status_text(call_status(c))), md_code(c.tool_name), md_cell(c.risk or ""))
            cells += (md_cell(summary_line(c)), md_code(c.call_id))
            rows.append("| " + " | ".join(cells) + " |")
        pictures = images_markdown(self.calls) if self.show_images else ""
        return escape_text("\n".join(rows)) + (f"\n\n{pictures}" if pictures else "")

    def __repr__(self) -> str:
        if not self.calls:
            return "(no tool calls)"
        return escape_text(
            "\n".join(
                f"{status_text(call_status(c)):<20} {c.tool_name:<12} {c.risk or '-':<6} {summary_line(c)[:70]}"
                f"  [{c.call_id}]"
                for c in self.calls
            )
        )


class PendingView(CallsTable):
    """Gated calls shown as approval requests (call, reason, diff preview, how to decide)."""

    def __init__(self, calls: Iterable[ToolCallInfo], note: str = "") -> None:
        super().__init__(calls)
        self.note = note

    def _repr_html_(self) -> str:
        note = f"<div><i>{esc(self.note)}</i></div>" if self.note else ""
        if not self.calls:
            return note + "<div><i>nothing is waiting for a decision</i></div>"
        return note + "".join(approval_html(c) for c in self.calls)

    def _repr_markdown_(self) -> str:
        parts = [f"_{md_inline(self.note)}_"] if self.note else []
        parts.extend(approval_markdown(c) for c in self.calls)
        return "\n\n".join(parts) or "_nothing is waiting for a decision_"

    def __repr__(self) -> str:
        lines = [self.note] if self.note else []
        for c in self.calls:
            lines.append(
                f"{status_text(c.status)} {c.tool_name} [{c.call_id}] risk={c.risk}: {c.reason or ''}"
            )
            lines.append("  args: " + json.dumps(c.arguments, ensure_ascii=False, default=str)[:300])
            if c.preview:
                lines.extend("  " + line for line in c.preview.splitlines()[:40])
        return escape_text("\n".join(lines)) or "(nothing is waiting for a decision)"


#: The name the design notes use.
ToolCallTable = CallsTable


def calls_table(calls: Iterable[ToolCallInfo]) -> CallsTable:
    return CallsTable(calls)


def show_pending(session: HasPending, note: str = "") -> PendingView:
    """The session's gated calls as approval requests; display it (last line of a cell)."""
    return PendingView(session.pending(), note)
