"""Bounding text that goes to the model: keep the head and the tail, say what was cut."""

from __future__ import annotations


def truncate_middle(text: str, limit: int, *, head_ratio: float = 0.8, unit: str = "characters") -> str:
    """Cut ``text`` to at most ``limit`` characters, keeping the first ``head_ratio`` and the rest
    from the end, with a marker in between saying how much was left out.

    The marker itself is not counted against ``limit``; the kept text is exactly
    ``limit`` characters when a cut happens.
    """
    if limit <= 0:
        return f"[... {len(text)} {unit} omitted ...]" if text else ""
    if len(text) <= limit:
        return text
    head_len = int(limit * head_ratio)
    tail_len = limit - head_len
    head = text[:head_len]
    tail = text[len(text) - tail_len :] if tail_len else ""
    omitted = text[head_len : len(text) - tail_len]
    omitted_lines = omitted.count("\n")
    lines_note = f", {omitted_lines} lines" if omitted_lines else ""
    marker = f"\n[... {len(omitted)} {unit} omitted{lines_note} ...]\n"
    return head + marker + tail
