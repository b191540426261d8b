"""The text the model reads: order, exit code, duration, notes."""

from __future__ import annotations

from cairn.tools.shell.capture import BoundedCapture, Captured
from cairn.tools.shell.render import format_duration, render_result


def _cap(data: bytes, limit: int = 1000) -> Captured:
    cap = BoundedCapture(limit)
    cap.write(data)
    return cap.snapshot()


def test_duration_is_reported_only_over_five_seconds():
    quick = render_result(_cap(b"x\n"), _cap(b""), exit_code=0, duration_s=5.0)
    slow = render_result(_cap(b"x\n"), _cap(b""), exit_code=0, duration_s=7.24)
    assert quick == "x\nExit code: 0"
    assert slow == "x\nExit code: 0\nDuration: 7.2s"


def test_long_durations_in_minutes():
    assert format_duration(125) == "2m 5s"


def test_signal_and_notes():
    text = render_result(
        _cap(b""), _cap(b"boom\n"), exit_code=143, signal="SIGTERM", notes=["cwd is now: sub/dir"]
    )
    assert text == "[stderr] boom\nExit code: 143 (killed by SIGTERM)\ncwd is now: sub/dir"


def test_binary_stderr_is_a_marked_note():
    text = render_result(_cap(b"ok\n"), _cap(b"\x1f\x8b\x08\x00data"), exit_code=0)
    assert text == "ok\n[stderr] [binary output: 8 bytes, gzip archive]\nExit code: 0"


def test_truncated_stderr_marker_is_prefixed_like_every_stderr_line():
    text = render_result(_cap(b""), _cap(b"e" * 2000, limit=100), exit_code=1)
    lines = text.splitlines()
    assert lines[1] == "[stderr] [... 1,900 bytes of stderr omitted ...]"
    assert all(line.startswith("[stderr] ") for line in lines[:-1])
