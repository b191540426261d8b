"""Is this process output binary, and if so what is it?

Commands sometimes write images, archives or executables to stdout (``cat logo.png``,
``curl -s URL``).  Such bytes are useless to a model and expensive in tokens, so the
bash tool replaces them with a note: ``[binary output: 1.2 MB, PNG image]``.

Detection looks at the first bytes only (magic numbers), then at a sample for NUL
bytes or text that is not UTF-8.  Output that is *mostly* text with a few stray
non-UTF-8 bytes (a Latin-1 file name in a listing) stays text: only samples where
invalid UTF-8 coexists with mostly non-printable bytes count as binary.
"""

from __future__ import annotations

import struct

#: How much of the start of a stream is examined.
SAMPLE_BYTES = 8192

#: (prefix, offset, type name), checked in order.
_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x7fELF", 0, "ELF executable"),
    (b"\x89PNG\r\n\x1a\n", 0, "PNG image"),
    (b"\xff\xd8\xff", 0, "JPEG image"),
    (b"%PDF-", 0, "PDF document"),
    (b"GIF87a", 0, "GIF image"),
    (b"GIF89a", 0, "GIF image"),
    (b"\x1f\x8b", 0, "gzip archive"),
    (b"PK\x03\x04", 0, "ZIP archive"),
    (b"PK\x05\x06", 0, "ZIP archive"),
    (b"PK\x07\x08", 0, "ZIP archive"),
    (b"ustar", 257, "tar archive"),
    (b"\x00asm", 0, "WebAssembly module"),
    (b"\xfe\xed\xfa\xce", 0, "Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", 0, "Mach-O executable"),
    (b"\xce\xfa\xed\xfe", 0, "Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", 0, "Mach-O executable"),
)

#: Valid sizes of a BMP's DIB header (BITMAPCOREHEADER ... BITMAPV5HEADER).
_BMP_DIB_SIZES = {12, 16, 40, 52, 56, 64, 108, 124}
_PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D, 0x0C, 0x1B}


def detect_binary(data: bytes) -> str | None:
    """The kind of binary data ``data`` starts with, or ``None`` when it is text.

    ``data`` is the beginning of a stream (at least the first few hundred bytes when
    available).  A multi-byte UTF-8 character cut at the end of ``data`` is fine.
    """
    if not data:
        return None
    kind = magic_type(data)
    if kind is not None:
        return kind
    sample = data[:SAMPLE_BYTES]
    if b"\x00" in sample:
        return "binary data (NUL bytes)"
    if not _is_utf8_prefix(sample) and not _mostly_printable(sample):
        return "binary data (not UTF-8 text)"
    return None


def magic_type(data: bytes) -> str | None:
    """The file type named by the magic bytes at the start of ``data``, if any."""
    for prefix, offset, name in _MAGIC:
        if data[offset : offset + len(prefix)] == prefix:
            return name
    if data[:4] == b"\xca\xfe\xba\xbe" and len(data) >= 8:
        # Shared by Java class files (then a version >= 45 follows) and fat Mach-O (an arch count).
        (count,) = struct.unpack(">I", data[4:8])
        return "Mach-O universal binary" if count < 45 else "Java class file"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP image"
    if _looks_like_bmp(data):
        return "BMP image"
    return None


def _looks_like_bmp(data: bytes) -> bool:
    # "BM" alone would flag text starting with "BMW"; check the reserved and DIB-size fields too.
    if data[:2] != b"BM" or len(data) < 18:
        return False
    reserved = data[6:10]
    (dib_size,) = struct.unpack("<I", data[14:18])
    return reserved == b"\x00\x00\x00\x00" and dib_size in _BMP_DIB_SIZES


def _is_utf8_prefix(sample: bytes) -> bool:
    """Whether ``sample`` is valid UTF-8, allowing one character cut off at the end."""
    try:
        sample.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:
        # An incomplete sequence in the last 3 bytes is a cut, not an error.
        return exc.start >= len(sample) - 3 and exc.reason == "unexpected end of data"


def _mostly_printable(sample: bytes) -> bool:
    """Legacy-encoded text (Latin-1 names in a listing) is mostly printable ASCII; random bytes are not.

    A short listing (``bad\\xff.txt``) has few bytes to vote with: without any control byte,
    half of them printable ASCII is enough.
    """
    printable = sum(1 for b in sample if b in _PRINTABLE)
    if printable >= 0.9 * len(sample):
        return True
    controls = sum(1 for b in sample if b < 0x80 and b not in _PRINTABLE)
    return controls == 0 and printable >= 0.5 * len(sample)


def format_size(n: int) -> str:
    """``1258291`` -> ``"1.2 MB"`` (binary multiples, one decimal)."""
    if n < 1024:
        return f"{n} bytes" if n != 1 else "1 byte"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def binary_note(kind: str, size: int) -> str:
    """The line the model sees instead of binary output."""
    return f"[binary output: {format_size(size)}, {kind}]"
