"""ANSI stripping, carriage-return collapsing, UTF-8 cut helpers, progress line feed."""

from __future__ import annotations

from cairn.tools.shell.progress import MAX_LINE_CHARS, LineFeed
from cairn.tools.shell.text import (
    clean_for_model,
    collapse_carriage_returns,
    incomplete_utf8_suffix,
    leading_continuation_bytes,
    strip_ansi,
)


def test_strip_ansi_removes_colours_cursor_moves_titles_and_links():
    text = (
        "\x1b[1;31mred\x1b[0m \x1b[2K\x1b[1Gdone \x1b]0;title\x07"
        "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1b(B\x1b=ok\x07"
    )
    assert strip_ansi(text) == "red done link ok"


def test_strip_ansi_keeps_tabs_newlines_and_unicode():
    assert strip_ansi("a\tb\n中文\n") == "a\tb\n中文\n"


def test_carriage_return_progress_bars_collapse_to_the_final_state():
    assert collapse_carriage_returns("10%\r50%\r100%\ndone\r\n") == "100%\ndone\n"
    assert clean_for_model("\x1b[32m 1/3\r 3/3\x1b[0m\n") == " 3/3\n"


def test_incomplete_utf8_suffix():
    zhong = "中".encode()  # e4 b8 ad
    assert incomplete_utf8_suffix(b"abc") == 0
    assert incomplete_utf8_suffix(b"a" + zhong) == 0
    assert incomplete_utf8_suffix(b"a" + zhong[:1]) == 1
    assert incomplete_utf8_suffix(b"a" + zhong[:2]) == 2
    assert incomplete_utf8_suffix("😀".encode()[:3]) == 3
    assert incomplete_utf8_suffix(b"") == 0


def test_leading_continuation_bytes():
    zhong = "中".encode()
    assert leading_continuation_bytes(zhong[1:] + b"x") == 2
    assert leading_continuation_bytes(zhong) == 0


def test_line_feed_gives_complete_lines_and_the_unterminated_last_one_at_the_end():
    feed = LineFeed()
    feed.feed(b"one\ntw")
    feed.feed(b"o\nthree")
    assert feed.drain() == ["one", "two"]
    feed.feed(b"err\n", "[stderr] ")
    assert feed.drain() == ["[stderr] err"]
    feed.flush_partial()
    assert feed.drain() == ["three"]


def test_line_feed_keeps_only_the_most_recent_lines_of_a_flood():
    feed = LineFeed(max_lines=5)
    feed.feed(b"".join(b"%d\n" % i for i in range(100_000)))
    assert feed.drain() == ["99995", "99996", "99997", "99998", "99999"]
    assert feed.drain() == []


def test_line_feed_bounds_long_lines_and_strips_escapes():
    feed = LineFeed()
    feed.feed(b"\x1b[31m" + b"x" * 10_000 + b"\x1b[0m\n")
    (line,) = feed.drain()
    assert len(line) == MAX_LINE_CHARS and line.endswith("…") and "\x1b" not in line
