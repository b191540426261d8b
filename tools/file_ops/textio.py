"""Decoding text files so they can be written back byte-for-byte the same way.

A file is decoded once into :class:`Decoded`: the exact text (original line
endings kept, BOM removed), the codec, the BOM bytes and the dominant line
ending.  :func:`encode_like` turns edited text back into bytes with the same
BOM and codec, so an untouched region of a file never changes.

UTF-8 is decoded with ``surrogateescape``: a byte that is not valid UTF-8 becomes
a lone surrogate (U+DC80..U+DCFF) and is written back as the same byte.  Such
text must go through :func:`printable` before anyone sees it.  A UTF-16/32 file
that does not decode strictly is marked ``lossy`` and is not edited.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

#: Checked in order: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Tried in order for files that are not mostly UTF-8. cp1252 fails on a few bytes, latin-1 never does.
_LEGACY = ("cp1252", "latin-1")
_ESCAPED = re.compile("[\udc80-\udcff]")  # bytes surrogateescape could not decode
_NON_ASCII = re.compile("[^\x00-\x7f\udc80-\udcff]")


@dataclass(frozen=True)
class Decoded:
    text: str  # exact text: original line endings, no BOM; invalid UTF-8 bytes as lone surrogates
    encoding: str  # Python codec name
    bom: bytes = b""
    newline: str = "\n"  # dominant line ending: "\n", "\r\n" or "\r"
    errors: str = "strict"  # codec error handler that turns ``text`` back into the same bytes
    invalid: int = 0  # bytes that are not valid in ``encoding`` (kept through surrogateescape)
    lossy: bool = False  # ``text`` does not give back the file's bytes (UTF-16/32 that did not decode)

    def describe(self) -> str:
        """``"utf-8"``, ``"utf-16-le with BOM, CRLF"``: for notes to the model and people."""
        parts = [self.encoding + (" with BOM" if self.bom else "")]
        if self.newline != "\n":
            parts.append({"\r\n": "CRLF", "\r": "CR"}[self.newline])
        if self.invalid:
            word = "byte" if self.invalid == 1 else "bytes"
            parts.append(f"{self.invalid:,} invalid {word} shown as \ufffd")
        if self.lossy:
            parts.append(f"not valid {self.encoding}: shown with \ufffd, not editable")
        return ", ".join(parts)


def split_bom(data: bytes) -> tuple[bytes, str | None]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return bom, encoding
    return b"", None


def decode(data: bytes) -> Decoded:
    """Decode file bytes; never fails (latin-1 is the last resort).

    Without a BOM a file is UTF-8 when it decodes as UTF-8, or when its valid
    non-ASCII UTF-8 characters are at least as many as its invalid bytes (a UTF-8
    file with a stray Latin-1 byte); otherwise it is cp1252, then latin-1.
    """
    bom, encoding = split_bom(data)
    body = data[len(bom) :]
    if encoding is not None and encoding != "utf-8":
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError:
            text = body.decode(encoding, errors="replace")
            return Decoded(text, encoding, bom, detect_newline(text), lossy=True)
        return Decoded(text, encoding, bom, detect_newline(text))
    try:
        text, invalid = body.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = body.decode("utf-8", errors="surrogateescape")
        invalid = len(_ESCAPED.findall(text))
    if encoding == "utf-8" or not invalid or len(_NON_ASCII.findall(text)) >= invalid:
        return Decoded(text, "utf-8", bom, detect_newline(text), "surrogateescape", invalid)
    for candidate in _LEGACY:
        try:
            text = data.decode(candidate)
        except UnicodeDecodeError:
            continue
        return Decoded(text, candidate, b"", detect_newline(text))
    raise AssertionError("latin-1 decodes every byte string")


def printable(text: str) -> str:
    """``text`` with the surrogates standing for invalid bytes shown as U+FFFD (safe to encode)."""
    return _ESCAPED.sub("\ufffd", text) if not text.isascii() else text


def detect_newline(text: str) -> str:
    """The most common line ending in ``text`` (``"\\n"`` when there is none)."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if crlf > lf and crlf >= cr:
        return "\r\n"
    if cr > lf and cr > crlf:
        return "\r"
    return "\n"


def encode_like(text: str, like: Decoded | None) -> bytes:
    """Encode ``text`` with the BOM and codec of ``like`` (UTF-8 without BOM for new files).

    Raises ``UnicodeEncodeError`` when ``text`` has characters the codec cannot hold.
    """
    if like is None:
        return text.encode("utf-8")
    return like.bom + text.encode(like.encoding, like.errors)


def to_newline(text: str, newline: str) -> str:
    """Convert every line ending in ``text`` (``\\r\\n``, ``\\n``, lone ``\\r``) to ``newline``."""
    unified = text.replace("\r\n", "\n").replace("\r", "\n")
    return unified if newline == "\n" else unified.replace("\n", newline)


def split_lines(text: str) -> list[str]:
    """Lines without their terminators, numbered the way grep numbers them.

    Lines end at ``\\n`` (a trailing ``\\r`` is dropped); a file whose line
    ending is a lone ``\\r`` is split on ``\\r``.  A final line ending does not
    start an extra empty line.
    """
    if not text:
        return []
    if "\n" not in text and "\r" in text:
        lines = text.split("\r")
    else:
        lines = text.split("\n")
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if lines and lines[-1] == "":
        lines.pop()
    return lines
