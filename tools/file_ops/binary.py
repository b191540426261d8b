"""Telling binary files from text: magic bytes first, then NUL bytes.

Only the first few KB are looked at, so a huge binary file is never read whole.
Text encoded as UTF-16/32 contains NUL bytes, so a byte-order mark wins over the
NUL test.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

#: How much of a file the sniffers look at.
SNIFF_BYTES = 8192

#: Byte-order marks that make a file text despite NUL bytes (a ``startswith`` test, so the order does
#: not matter here; :mod:`cairn.tools.file_ops.textio` checks UTF-32-LE before its prefix UTF-16-LE).
_TEXT_BOMS = (
    codecs.BOM_UTF8,
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)


@dataclass(frozen=True)
class FileKind:
    """What the first bytes say a file is."""

    label: str  # "PNG image", "ELF executable", "binary data"
    mime: str | None = None
    image: bool = False  # an image read_file can hand to the model

    @property
    def is_pdf(self) -> bool:
        return self.mime == "application/pdf"


PNG = FileKind("PNG image", "image/png", True)
JPEG = FileKind("JPEG image", "image/jpeg", True)
GIF = FileKind("GIF image", "image/gif", True)
WEBP = FileKind("WebP image", "image/webp", True)
BMP = FileKind("BMP image", "image/bmp", True)
PDF = FileKind("PDF document", "application/pdf")
BINARY = FileKind("binary data")

#: (prefix, kind) pairs checked in order; prefixes specific enough to trust alone.
_MAGIC: tuple[tuple[bytes, FileKind], ...] = (
    (b"\x89PNG\r\n\x1a\n", PNG),
    (b"\xff\xd8\xff", JPEG),
    (b"GIF87a", GIF),
    (b"GIF89a", GIF),
    (b"%PDF-", PDF),
    (b"\x7fELF", FileKind("ELF executable")),
    (b"PK\x03\x04", FileKind("ZIP archive (or jar/wheel/docx)")),
    (b"\x1f\x8b", FileKind("gzip archive")),
    (b"\xfd7zXZ\x00", FileKind("xz archive")),
    (b"7z\xbc\xaf\x27\x1c", FileKind("7-Zip archive")),
    (b"SQLite format 3\x00", FileKind("SQLite database")),
    (b"\x00asm", FileKind("WebAssembly module")),
    (b"\xca\xfe\xba\xbe", FileKind("Mach-O or Java class file")),
    (b"\xcf\xfa\xed\xfe", FileKind("Mach-O executable")),
    (b"\xfe\xed\xfa\xcf", FileKind("Mach-O executable")),
    (b"\x00\x00\x01\x00", FileKind("ICO image")),
    (b"OggS", FileKind("Ogg media")),
    (b"fLaC", FileKind("FLAC audio")),
    (b"\x1aE\xdf\xa3", FileKind("Matroska/WebM video")),
)


def sniff(head: bytes) -> FileKind | None:
    """The kind of a file that is not plain text, or ``None`` for text.

    ``head`` is the first :data:`SNIFF_BYTES` (or more) bytes of the file.
    """
    for prefix, kind in _MAGIC:
        if head.startswith(prefix):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return WEBP
    if head.startswith(_TEXT_BOMS):
        return None
    if b"\x00" in head[:SNIFF_BYTES]:
        # Weak magics ("BM", "MZ", "ID3") are only believed when the data is binary anyway.
        if head.startswith(b"BM") and len(head) >= 26:
            return BMP
        if head.startswith(b"MZ"):
            return FileKind("Windows executable")
        return BINARY
    return None
