"""Rendering an export document as Markdown, JSON or one self-contained HTML page."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from cairn.graph.core.cost.report import cost_text, money

FORMATS = ("md", "json", "html")
_STATUS = {"success": "✓", "error": "✗", "cancelled": "–", "interrupted": "■", "awaiting_approval": "?"}


def render(doc: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, ensure_ascii=False, indent=2, default=str) + "\n"
    if fmt == "md":
        return to_markdown(doc)
    if fmt == "html":
        return to_html(doc)
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _lifecycle(call: dict[str, Any]) -> str:
    bits = [f"{_STATUS.get(call.get('status', ''), '')} {call.get('status', 'unknown')}".strip()]
    if call.get("risk"):
        bits.append(f"risk {call['risk']}")
    if call.get("decision"):
        bits.append(f"decision: {call['decision']}")
    if call.get("sandbox"):
        bits.append(f"sandbox {call['sandbox']}")
    return " · ".join(bits)


def _cost_rows(doc: dict[str, Any]) -> list[str]:
    cost = doc.get("cost") or {}
    rows = [f"Cost: {cost_text(cost) or 'not recorded'} ({cost.get('currency', 'USD')})"]
    for row in cost.get("by_model") or []:
        rows.append(
            f"{row['model']}: {money(row['cost'])}, {row['input_tokens']:,} in "
            f"({row['cached_input_tokens']:,} cached), {row['output_tokens']:,} out, {row['calls']} calls"
        )
    for agent in cost.get("by_agent") or []:
        rows.append(f"sub-agent {agent['agent_id']} ({agent.get('description', '')}): {cost_text(agent)}")
    return rows


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def to_markdown(doc: dict[str, Any]) -> str:
    out = [f"# {doc.get('title') or 'cairn session'}", ""]
    out.append(f"- session: `{doc['session_id']}` · status **{doc['status']}** · mode {doc['mode']}")
    out.append(
        f"- workspace: `{doc['workspace']}`" + (f" · model `{doc['model']}`" if doc.get("model") else "")
    )
    out += [f"- {row}" for row in _cost_rows(doc)]
    for message in doc["messages"]:
        role, text = message["role"], message.get("content") or ""
        if role == "user":
            out += ["", "## You", "", text]
        elif role == "assistant":
            out += ["", "### cairn", ""]
            if text.strip():
                out.append(text)
            for call in message.get("tool_calls") or []:
                out += ["", f"**{call['tool_name']}** `{call['call_id']}` — {_lifecycle(call)}", ""]
                out.append(
                    _fence(json.dumps(call.get("arguments") or {}, ensure_ascii=False, indent=2), "json")
                )
                if call.get("reason"):
                    out.append(f"\n> {call['reason']}")
                if call.get("diff"):
                    out += ["", _fence(call["diff"], "diff")]
                if call.get("result"):
                    out += [
                        "",
                        "<details><summary>result</summary>",
                        "",
                        _fence(str(call["result"])),
                        "",
                        "</details>",
                    ]
        elif text.strip():
            out += ["", f"_{role}_: {text}"]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font:14px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#1f2328}
h1{font-size:1.4em}.meta{color:#59636e}.you{background:#eef6ff;border-radius:6px;padding:.5em 1em;margin:1.5em 0 .5em}
.cairn{padding:.25em 1em}.call{border:1px solid #d1d9e0;border-radius:6px;margin:.5em 0;padding:.5em 1em}
.life{color:#59636e;font-size:12px}pre{background:#f6f8fa;padding:8px;overflow-x:auto;white-space:pre-wrap;
word-break:break-word;font-size:12px}.add{color:#116329}.del{color:#82071e}.note{color:#59636e;font-style:italic}
"""


def _diff_html(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        cls = (
            "add"
            if line.startswith("+") and not line.startswith("+++")
            else ("del" if line.startswith("-") and not line.startswith("---") else "")
        )
        lines.append(f'<span class="{cls}">{escape(line)}</span>' if cls else escape(line))
    return "<pre>" + "\n".join(lines) + "</pre>"


def to_html(doc: dict[str, Any]) -> str:
    """One page, no external resource (styles inline, nothing fetched)."""
    title = escape(doc.get("title") or "cairn session")
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{_CSS}</style></head><body>",
        f"<h1>{title}</h1>",
        f'<p class="meta">session <code>{escape(doc["session_id"])}</code> · status <b>{escape(doc["status"])}'
        f"</b> · mode {escape(doc['mode'])} · workspace <code>{escape(doc['workspace'])}</code></p>",
        '<ul class="meta">' + "".join(f"<li>{escape(r)}</li>" for r in _cost_rows(doc)) + "</ul>",
    ]
    for message in doc["messages"]:
        role, text = message["role"], message.get("content") or ""
        if role == "user":
            parts.append(f'<div class="you"><b>You</b><pre>{escape(text)}</pre></div>')
        elif role == "assistant":
            parts.append('<div class="cairn">')
            if text.strip():
                parts.append(f"<pre>{escape(text)}</pre>")
            for call in message.get("tool_calls") or []:
                args = json.dumps(call.get("arguments") or {}, ensure_ascii=False, indent=2)
                parts.append(
                    f'<div class="call"><b>{escape(call["tool_name"])}</b> <code>{escape(call["call_id"])}</code>'
                    f'<div class="life">{escape(_lifecycle(call))}</div><pre>{escape(args)}</pre>'
                )
                if call.get("reason"):
                    parts.append(f'<div class="life">{escape(call["reason"])}</div>')
                if call.get("diff"):
                    parts.append(f"<details open><summary>diff</summary>{_diff_html(call['diff'])}</details>")
                if call.get("result"):
                    parts.append(
                        f"<details><summary>result</summary><pre>{escape(str(call['result']))}</pre></details>"
                    )
                parts.append("</div>")
            parts.append("</div>")
        elif text.strip():
            parts.append(f'<p class="note">{escape(role)}: {escape(text)}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
