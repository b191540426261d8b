"""What the model reads after a command: stdout, ``[stderr]`` lines, exit code, notes."""

from __future__ import annotations

from cairn.tools.shell.binary import binary_note, detect_binary
from cairn.tools.shell.capture import Captured
from cairn.tools.shell.text import clean_for_model, decode, incomplete_utf8_suffix, leading_continuation_bytes

STDERR_PREFIX = "[stderr] "
#: Commands running longer than this report their duration.
REPORT_DURATION_OVER_S = 5.0


def render_stream(captured: Captured, name: str) -> str:
    """The text of one stream for the model: decoded, cleaned, cut in the middle with a marker."""
    size = len(captured.head) + captured.omitted + len(captured.tail)
    if size == 0:
        return ""
    # The tail starts wherever the cut fell, possibly inside a character.
    tail_start = leading_continuation_bytes(captured.tail) if captured.omitted or not captured.head else 0
    kind = detect_binary(captured.head)
    if kind is None and (captured.omitted or not captured.head):
        kind = detect_binary(captured.tail[tail_start:])
    if kind is not None:
        return binary_note(kind, size)
    if not captured.omitted:
        return clean_for_model(decode(captured.head + captured.tail))
    head, tail = captured.head, captured.tail
    cut_head = incomplete_utf8_suffix(head)  # keep characters whole at the cut
    cut_tail = tail_start
    head, tail = head[: len(head) - cut_head], tail[cut_tail:]
    omitted = captured.omitted + cut_head + cut_tail
    lines = f", {captured.omitted_lines:,} lines" if captured.omitted_lines else ""
    marker = f"[... {omitted:,} bytes{lines} of {name} omitted ...]"
    head_text = clean_for_model(decode(head))
    tail_text = clean_for_model(decode(tail))
    if head_text and not head_text.endswith("\n"):
        head_text += "\n"
    return f"{head_text}{marker}\n{tail_text}"


def prefix_lines(text: str, prefix: str = STDERR_PREFIX) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def render_streams(stdout: Captured, stderr: Captured) -> str:
    """stdout, then stderr with each line marked; ``""`` when both are empty."""
    parts = []
    out = render_stream(stdout, "stdout").rstrip("\n")
    if out:
        parts.append(out)
    err = render_stream(stderr, "stderr").rstrip("\n")
    if err:
        parts.append(prefix_lines(err))
    return "\n".join(parts)


def format_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m {secs}s"


def render_result(
    stdout: Captured,
    stderr: Captured,
    *,
    exit_code: int | None,
    signal: str | None = None,
    duration_s: float = 0.0,
    notes: list[str] | None = None,
) -> str:
    """The full text for the model: output, ``Exit code: N``, duration when slow, notes."""
    body = render_streams(stdout, stderr) or "(no output)"
    lines = [body]
    if exit_code is not None:
        suffix = f" (killed by {signal})" if signal else ""
        lines.append(f"Exit code: {exit_code}{suffix}")
    if duration_s > REPORT_DURATION_OVER_S:
        lines.append(f"Duration: {format_duration(duration_s)}")
    lines.extend(notes or ())
    return "\n".join(lines)
