"""Building blocks of ``cairn.graph.display``: badges, escaping, one call's details, approvals.

Everything that came from a tool or a model goes through ``esc`` (HTML) or ``md_inline`` /
``md_code`` / ``md_text`` / ``fence`` (Markdown, in ``cairn.graph.display.markdown``): tool output is
untrusted text (a web page, a file) and must never become markup in a person's notebook.
Images reach the page only as validated base64 ``data:`` URLs of a known image type.
"""

from __future__ import annotations

import html
import json
import re
from typing import TYPE_CHECKING, Any

from cairn.graph.core.call_args import args_summary
from cairn.graph.display.markdown import MAX_SHOWN_CHARS, fence, md_code, md_inline
from cairn.tools.file_ops.names import escape_text
from cairn.tools.output import truncate_middle

if TYPE_CHECKING:
    from cairn.graph.core.state import ToolCallInfo

#: status -> (text colour, background, icon). The seven call statuses, ``denied`` (a call the
#: policy refused: status ``cancelled``), then the run-only ones. The icons are in every common
#: font (no ⏸ or ⊘, which many fonts lack and show as a box).
STATUS_STYLE: dict[str, tuple[str, str, str]] = {
    "pending": ("#374151", "#e5e7eb", "○"),
    "awaiting_approval": ("#92400e", "#fef3c7", "?"),
    "executing": ("#1e40af", "#dbeafe", "▶"),
    "success": ("#166534", "#dcfce7", "✓"),
    "error": ("#991b1b", "#fee2e2", "✗"),
    "failed": ("#991b1b", "#fee2e2", "✗"),
    "cancelled": ("#475569", "#e2e8f0", "–"),
    "denied": ("#991b1b", "#fee2e2", "×"),
    "rejected": ("#92400e", "#fef3c7", "×"),
    "interrupted": ("#6b21a8", "#f3e8ff", "■"),
    "done": ("#166534", "#dcfce7", "✓"),
    "max_steps": ("#92400e", "#fef3c7", "■"),
    "loop": ("#92400e", "#fef3c7", "■"),
    "incomplete": ("#92400e", "#fef3c7", "■"),
    "no_answer": ("#92400e", "#fef3c7", "■"),
    "budget": ("#92400e", "#fef3c7", "■"),  # issue 34
}
_DENIED = ("Denied by policy", "A person edited this call, but the edited call is denied")
RISK_STYLE = {"LOW": ("#166534", "#dcfce7"), "MEDIUM": ("#92400e", "#fef3c7"), "HIGH": ("#991b1b", "#fee2e2")}
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"})
#: markdown-it (and so most Markdown frontends) refuses other ``data:`` URLs.
MARKDOWN_IMAGE_TYPES = IMAGE_TYPES - {"image/bmp"}
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_PRE = "white-space:pre-wrap;word-break:break-word;margin:4px 0;padding:6px;background:#f6f8fa;font-size:12px"


def esc(value: Any) -> str:
    """HTML-escaped text; lone surrogates (undecodable names) as ``\\xff`` escapes."""
    return html.escape(escape_text(str(value)), quote=True)


def call_status(call: ToolCallInfo) -> str:
    """The status a person reads: ``denied`` for a call the policy refused, ``rejected`` for one
    a person refused, ``failed`` for a
    command that ran and exited non-zero (a failing test run is not a green tick), else its status."""
    if call.status == "cancelled" and (call.error_msg or "").startswith(_DENIED):
        return "denied"
    if call.status == "cancelled" and (call.decision or "").startswith("rejected"):
        return "rejected"  # the person said no: the CLI's word too (docs/cli.md, outcome words)
    if call.status == "success" and failed_command(call.metadata, call.display):
        return "failed"
    return call.status


_EXIT = re.compile(r" → exit (-?\d+) \(")


def failed_command(metadata: Any, display: str | None) -> bool:
    """Whether a call that ran (status ``success``) was a command that exited non-zero: from
    the shell tool's ``exit_code`` metadata, or its display line (``Ran: pytest → exit 1 (2.0s)``)
    where the metadata was not kept."""
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    if code is None:
        match = _EXIT.search(display or "")
        code = int(match.group(1)) if match else None
    return isinstance(code, int) and code != 0


def status_text(status: str) -> str:
    return f"{STATUS_STYLE.get(status, ('', '', '•'))[2]} {status}"


def badge(status: str) -> str:
    fg, bg, icon = STATUS_STYLE.get(status, ("#374151", "#e5e7eb", "•"))
    style = f"color:{fg};background:{bg};border-radius:8px;padding:1px 7px;font-size:12px;white-space:nowrap"
    return f'<span class="cairn-status cairn-{esc(status)}" style="{style}">{icon} {esc(status)}</span>'


def risk_badge(risk: str | None) -> str:
    if not risk:
        return ""
    fg, bg = RISK_STYLE.get(str(risk).upper(), ("#374151", "#e5e7eb"))
    style = f"color:{fg};background:{bg};border-radius:4px;padding:0 5px;font-size:11px"
    return f'<span class="cairn-risk" style="{style}">{esc(risk)}</span>'


def output_text(call: ToolCallInfo) -> str:
    """What the call produced, as text (the error for failed calls)."""
    if call.status in ("error", "cancelled", "interrupted") and call.error_msg:
        return call.error_msg
    result = call.result
    if isinstance(result, list):
        return "\n".join(str(b.get("text", "")) for b in result if isinstance(b, dict) and "text" in b)
    return result or ""


def summary_line(call: ToolCallInfo) -> str:
    return call.display or args_summary(call.tool_name, call.arguments)


def images(call: ToolCallInfo) -> list[tuple[str, str]]:
    """``(mime_type, base64)`` of images the call returned: ``metadata["image"]`` first, else the
    image content blocks of its result. Anything that is not a known type in clean base64 is dropped."""
    found: list[tuple[str, str]] = []
    meta = call.metadata.get("image") if isinstance(call.metadata, dict) else None
    if isinstance(meta, dict):
        found.append((str(meta.get("mime_type", "")), str(meta.get("base64", ""))))
    elif isinstance(call.result, list):
        for block in call.result:
            if not isinstance(block, dict):
                continue
            url = (block.get("image_url") or {}).get("url", "") if block.get("type") == "image_url" else ""
            if isinstance(url, str) and url.startswith("data:") and ";base64," in url:
                mime, data = url[5:].split(";base64,", 1)
                found.append((mime, data))
            elif block.get("type") == "image" and block.get("data"):
                found.append((str(block.get("mime_type", "")), str(block["data"])))
    return [(m.lower(), d) for m, d in found if m.lower() in IMAGE_TYPES and _BASE64.fullmatch(d)]


def image_html(mime: str, data: str) -> str:
    if mime not in IMAGE_TYPES or not _BASE64.fullmatch(data):
        return ""
    return f'<img src="data:{mime};base64,{data}" style="max-width:480px;max-height:360px" alt="tool image"/>'


def images_html(call: ToolCallInfo, *, caption: bool = False) -> str:
    """The call's images, meant to sit outside any collapsed block (they are what a person looks at)."""
    shown = [image_html(mime, data) for mime, data in images(call)]
    if not shown:
        return ""
    head = f"<div><small>{esc(call.tool_name)}: {esc(summary_line(call))}</small></div>" if caption else ""
    return f'<div class="cairn-images" style="margin:4px 0">{head}{"".join(shown)}</div>'


def images_markdown(calls: list[ToolCallInfo]) -> str:
    """The calls' images as Markdown images (only the types Markdown renderers accept as data URLs)."""
    return "\n\n".join(
        f"![image {n}](data:{mime};base64,{data})"
        for n, (mime, data) in enumerate((img for c in calls for img in images(c)), start=1)
        if mime in MARKDOWN_IMAGE_TYPES
    )


def diff_html(diff: str) -> str:
    """A unified diff with added/removed lines coloured (escaped line by line)."""
    colours = {"+": "#166534", "-": "#991b1b", "@": "#1e40af"}
    lines = []
    for line in truncate_middle(diff, MAX_SHOWN_CHARS).splitlines():
        colour = None if line.startswith(("+++", "---")) else colours.get(line[:1])
        lines.append(f'<span style="color:{colour}">{esc(line)}</span>' if colour else esc(line))
    return f'<pre class="cairn-diff" style="{_PRE}">' + "\n".join(lines) + "</pre>"


def pre(text: str) -> str:
    return f'<pre style="{_PRE}">{esc(truncate_middle(text, MAX_SHOWN_CHARS))}</pre>'


def details(summary: str, body: str, *, open_: bool = False) -> str:
    """``summary`` is trusted markup built here; ``body`` must already be escaped."""
    return f"<details{' open' if open_ else ''}><summary>{summary}</summary>{body}</details>"


def _size(text: str) -> str:
    lines = text.count("\n") + 1
    kb = len(text.encode("utf-8", "replace")) / 1024
    return f"{lines} line{'s' if lines != 1 else ''}, " + (
        f"{kb:.1f} KB" if kb >= 1 else f"{len(text)} chars"
    )


def call_details_html(call: ToolCallInfo) -> str:
    """The collapsed parts of a call: arguments, output, diff, decision. Images are not among
    them: ``images_html`` shows them where they need no click."""
    parts = []
    if call.reason:
        parts.append(f'<div style="font-size:12px">policy: {risk_badge(call.risk)} {esc(call.reason)}</div>')
    parts.append(
        details("arguments", pre(json.dumps(call.arguments, indent=2, ensure_ascii=False, default=str)))
    )
    if call.original_arguments is not None:
        original = json.dumps(call.original_arguments, indent=2, ensure_ascii=False, default=str)
        parts.append(details("arguments the model sent (edited)", pre(original)))
    out = output_text(call)
    if out:
        parts.append(details(f"{'error' if call.status != 'success' else 'output'} ({_size(out)})", pre(out)))
    diff = call.metadata.get("diff") if isinstance(call.metadata, dict) else None
    if isinstance(diff, str) and diff:
        parts.append(details(f"diff ({_size(diff)})", diff_html(diff)))
    if call.decision:
        parts.append(f'<div style="font-size:12px;color:#6b7280">decision: {esc(call.decision)}</div>')
    return "".join(parts)


def approval_html(call: ToolCallInfo) -> str:
    """A gated call as a person must see it to decide: call, risk, reason, diff preview, how to answer."""
    title = "interrupted: run it again?" if call.status == "interrupted" else "waiting for your approval"
    whose = f" <i>sub-agent: {esc(call.agent or call.agent_id)}</i>" if call.agent_id else ""
    body = [
        f"<div>{badge(call.status)} {risk_badge(call.risk)} <b>{esc(title)}</b>{whose} "
        f"<code>{esc(call.tool_name)}</code> <small><code>{esc(call.call_id)}</code></small></div>",
        pre(json.dumps(call.arguments, indent=2, ensure_ascii=False, default=str)),
    ]
    if call.reason:
        body.append(f"<div><b>why:</b> {esc(call.reason)}</div>")
    if call.sandbox and call.status != "interrupted":
        body.append(f"<div><b>sandbox:</b> {esc(call.sandbox)} once approved</div>")
        if call.network:
            body.append(f"<div><b>network:</b> {esc(', '.join(call.network))} (granted)</div>")
        elif call.network_offer and call.sandbox != "off":
            body.append(f"<div><b>network offered:</b> {esc(', '.join(call.network_offer))}</div>")
    if call.error_msg and call.status == "interrupted":
        body.append(f"<div>{esc(call.error_msg)}</div>")
    if call.preview:
        body.append(details("preview (dry run)", diff_html(call.preview), open_=True))
    body.append(f'<pre style="{_PRE};background:#fff">{esc(how_to_decide(call))}</pre>')
    style = "border-left:3px solid #f59e0b;padding:4px 8px;margin:6px 0"
    return f'<div class="cairn-approval" style="{style}">' + "".join(body) + "</div>"


def how_to_decide(call: ToolCallInfo) -> str:
    cid = json.dumps(call.call_id)
    if call.status == "interrupted":
        return f"session.retry({cid})  # or session.cancel({cid})"
    unsandboxed = f', session.approve({cid}, sandbox="off")' if call.sandbox not in (None, "off") else ""
    if call.sandbox not in (None, "off") and call.network_offer:
        unsandboxed += f", session.approve({cid}, network={json.dumps(list(call.network_offer))})"
    return (
        f'session.approve({cid})  # or session.approve({cid}, always=True), session.reject({cid}, "why"),'
        f" session.edit({cid}, {{...new args...}}){unsandboxed}"
    )


# -- Markdown (helpers in cairn.graph.display.markdown) ---------------------------------------------
def approval_markdown(call: ToolCallInfo) -> str:
    title = "interrupted: run it again?" if call.status == "interrupted" else "waiting for your approval"
    whose = f" (sub-agent: {md_inline(call.agent or call.agent_id)})" if call.agent_id else ""
    parts = [
        f"**{status_text(call.status)}** · {md_inline(call.risk or '')} · {title}{whose}: "
        f"{md_code(call.tool_name)} ({md_code(call.call_id)})",
        fence(json.dumps(call.arguments, indent=2, ensure_ascii=False, default=str), "json"),
    ]
    if call.reason:
        parts.append(f"why: {md_inline(call.reason)}")
    if call.preview:
        parts.append(fence(call.preview, "diff"))
    parts.append(fence(how_to_decide(call), "python"))
    return "\n\n".join(parts)
