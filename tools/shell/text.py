"""Turning captured bytes into text for a model: UTF-8 at cut points, ANSI escapes, carriage returns."""

from __future__ import annotations

import re

from cairn.tools.file_ops.names import escape_text

# CSI (colours, cursor moves), OSC (titles, hyperlinks; ended by BEL or ST), and other
# two-byte escapes (charset selection, keypad modes).
_ANSI = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]          # CSI ... final byte
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?  # OSC ... BEL | ST
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?    # DCS / SOS / PM / APC strings
  | \x1b[()*+][0-9A-Za-z]            # charset designation
  | \x1b[@-Z\\-_=>78]                # other Fe / Fp escapes
  | \x9b[0-?]*[ -/]*[@-~]            # 8-bit CSI
    """,
    re.VERBOSE,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (and stray control characters other than tab/newline)."""
    if "\x1b" in text or "\x9b" in text:
        text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


def collapse_carriage_returns(text: str) -> str:
    """Keep what a terminal would show for lines redrawn with ``\\r`` (progress bars).

    ``"10%\\r50%\\r100%\\n"`` becomes ``"100%\\n"``; ``\\r\\n`` line endings become ``\\n``.
    """
    if "\r" not in text:
        return text
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    out = []
    for line in text.split("\n"):
        if "\r" in line:
            parts = [p for p in line.split("\r") if p]
            line = parts[-1] if parts else ""
        out.append(line)
    return "\n".join(out)


def clean_for_model(text: str) -> str:
    return strip_ansi(collapse_carriage_returns(text))


def incomplete_utf8_suffix(data: bytes | bytearray) -> int:
    """How many bytes at the end of ``data`` start a UTF-8 character that is not complete yet."""
    n = len(data)
    for back in range(1, min(4, n) + 1):
        byte = data[n - back]
        if byte & 0xC0 == 0x80:  # continuation byte: keep looking for the lead byte
            continue
        if byte & 0x80 == 0:  # ASCII
            return 0
        need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 0
        return back if need > back else 0
    return 0


def leading_continuation_bytes(data: bytes | bytearray) -> int:
    """How many bytes at the start of ``data`` are the rest of a character cut before it (0-3)."""
    n = 0
    while n < min(3, len(data)) and data[n] & 0xC0 == 0x80:
        n += 1
    return n


def decode(data: bytes) -> str:
    """UTF-8 text; a byte that is not UTF-8 (a Latin-1 file name ``ls`` printed) is shown as
    ``\\xff``, the escape the file tools accept back (see ``file_ops.names``)."""
    return escape_text(data.decode("utf-8", errors="surrogateescape"))
