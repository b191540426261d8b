"""Decoding bash ANSI-C quoting (``$'\\x72\\x6d'`` -> ``rm``) and re-quoting text for the parser."""

from __future__ import annotations

import re

__all__ = ["decode_ansi_c", "single_quote"]

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_SPELLING = re.compile(r"[A-Za-z0-9/._~ -]")


def decode_ansi_c(body: str) -> tuple[str, bool]:
    """Decode the inside of ``$'…'``; the flag says escapes spelled ordinary characters."""
    out: list[str] = []
    spelled = False
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        decoded: str | None = None
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
            continue
        if nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m
            decoded, i = chr(int(m.group(), 8) & 0xFF), i + 1 + len(m.group())
        elif nxt == "x" and re.match(r"[0-9A-Fa-f]", body[i + 2 : i + 3]):
            m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])
            assert m
            decoded, i = chr(int(m.group(), 16)), i + 2 + len(m.group())
        elif nxt in "uU" and re.match(r"[0-9A-Fa-f]", body[i + 2 : i + 3]):
            width = 4 if nxt == "u" else 8
            m = re.match(r"[0-9A-Fa-f]{1,%d}" % width, body[i + 2 :])  # noqa: UP031
            assert m
            code = int(m.group(), 16)
            decoded, i = (chr(code) if code < 0x110000 else "\ufffd"), i + 2 + len(m.group())
        elif nxt == "c" and i + 2 < len(body):
            decoded, i = chr(ord(body[i + 2]) & 0x1F), i + 3
        if decoded is None:
            out.append(ch + nxt)
            i += 2
            continue
        if _SPELLING.match(decoded):
            spelled = True
        out.append(decoded)
    text = "".join(out)
    if "\x00" in text:  # bash stops the string at a NUL
        text = text.split("\x00", 1)[0]
    return text, spelled


def single_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
