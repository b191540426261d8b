"""Bounded capture: exact limits, head/tail kept, constant memory, incremental reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.tools.shell.capture import STDERR_LIMIT, STDOUT_LIMIT, BoundedCapture
from cairn.tools.shell.render import render_stream


def _pattern(n: int) -> bytes:
    """Distinct bytes at every position (so head/tail checks mean something)."""
    return bytes((i * 7 + i // 251) % 251 + 1 for i in range(n))


def test_limits_are_the_issue_numbers():
    assert STDOUT_LIMIT == 200 * 1024
    assert STDERR_LIMIT == 56 * 1024
    assert STDOUT_LIMIT + STDERR_LIMIT == 256 * 1024


def test_under_the_limit_everything_is_kept():
    cap = BoundedCapture(STDOUT_LIMIT)
    data = _pattern(STDOUT_LIMIT)
    cap.write(data)
    snap = cap.snapshot()
    assert snap.head + snap.tail == data
    assert not snap.truncated


def test_over_the_limit_first_80_and_last_20_percent_exactly():
    cap = BoundedCapture(STDOUT_LIMIT)
    data = _pattern(STDOUT_LIMIT + 1)
    for i in range(0, len(data), 4096):
        cap.write(data[i : i + 4096])
    snap = cap.snapshot()
    assert len(snap.head) == 163840 == int(STDOUT_LIMIT * 0.8)
    assert len(snap.tail) == 40960
    assert snap.head == data[:163840]
    assert snap.tail == data[-40960:]
    assert snap.omitted == 1
    assert snap.total == len(data)


def test_stderr_limit_exact():
    cap = BoundedCapture(STDERR_LIMIT)
    data = _pattern(100_000)
    cap.write(data)
    snap = cap.snapshot()
    head_len = int(STDERR_LIMIT * 0.8)
    assert len(snap.head) + len(snap.tail) == STDERR_LIMIT
    assert snap.head == data[:head_len]
    assert snap.tail == data[-(STDERR_LIMIT - head_len) :]
    assert snap.omitted == 100_000 - STDERR_LIMIT


def test_omitted_lines_are_counted():
    cap = BoundedCapture(100)
    cap.write(b"".join(b"line %04d\n" % i for i in range(1000)))  # 10 bytes a line
    snap = cap.snapshot()
    kept_lines = (snap.head + snap.tail).count(b"\n")
    assert snap.omitted_lines == 1000 - kept_lines


def test_memory_stays_bounded_for_many_writes():
    cap = BoundedCapture(1000)
    for _ in range(10_000):
        cap.write(b"y\n" * 500)
    assert len(cap._head) + len(cap._tail) == 1000
    assert cap.total == 10_000_000


@settings(max_examples=200, deadline=None)
@given(chunks=st.lists(st.binary(max_size=300), max_size=40), limit=st.integers(1, 500))
def test_any_chunking_equals_cutting_the_whole(chunks, limit):
    cap = BoundedCapture(limit)
    for chunk in chunks:
        cap.write(chunk)
    whole = b"".join(chunks)
    snap = cap.snapshot()
    head_len = int(limit * 0.8)
    if len(whole) <= limit:
        assert snap.head + snap.tail == whole
    else:
        assert snap.head == whole[:head_len]
        assert snap.tail == whole[len(whole) - (limit - head_len) :]
        assert snap.omitted == len(whole) - limit
        assert snap.omitted_lines == whole.count(b"\n") - (snap.head + snap.tail).count(b"\n")


@settings(max_examples=200, deadline=None)
@given(
    chunks=st.lists(st.binary(min_size=1, max_size=200), min_size=1, max_size=30), limit=st.integers(10, 400)
)
def test_read_since_returns_exactly_the_new_bytes_still_held(chunks, limit):
    cap = BoundedCapture(limit)
    offset = 0
    written = b""
    for chunk in chunks:
        cap.write(chunk)
        written += chunk
        got, new_offset = cap.read_since(offset)
        assert new_offset == len(written)
        new = written[offset:]
        assert len(got.head) + got.omitted + len(got.tail) == len(new)
        assert new.startswith(got.head)
        assert new.endswith(got.tail)
        offset = new_offset


def test_render_marks_the_cut_and_keeps_cjk_whole():
    cap = BoundedCapture(1000)
    cap.write("中文".encode() * 1000)  # 6000 bytes of 3-byte characters; cuts fall mid-character
    text = render_stream(cap.snapshot(), "stdout")
    head, marker_and_tail = text.split("[... ", 1)
    assert "\ufffd" not in text
    assert set(head.strip()) <= {"中", "文"}
    assert "bytes of stdout omitted ...]" in marker_and_tail
    omitted = int(marker_and_tail.split(" bytes", 1)[0].replace(",", ""))
    kept = len(text.replace(f"[... {marker_and_tail.split(']', 1)[0]}]", "").replace("\n", "").encode())
    assert omitted + kept == 6000
