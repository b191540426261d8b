"""Binary detection by magic bytes, NUL bytes and non-UTF-8 text."""

from __future__ import annotations

import struct

import pytest

from cairn.tools.shell.binary import binary_note, detect_binary, format_size

PAYLOAD = b"\x01\x02rest of the file" * 4

TAR = b"file.txt".ljust(257, b"\0") + b"ustar\x0000" + b"\0" * 100

SAMPLES = {
    "ELF executable": b"\x7fELF\x02\x01\x01" + PAYLOAD,
    "PNG image": b"\x89PNG\r\n\x1a\n" + PAYLOAD,
    "JPEG image": b"\xff\xd8\xff\xe0" + PAYLOAD,
    "PDF document": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n" + PAYLOAD,
    "GIF image": b"GIF89a" + PAYLOAD,
    "gzip archive": b"\x1f\x8b\x08\x00" + PAYLOAD,
    "ZIP archive": b"PK\x03\x04" + PAYLOAD,
    "tar archive": TAR,
    "WebAssembly module": b"\x00asm\x01\x00\x00\x00" + PAYLOAD,
    "Mach-O executable": b"\xcf\xfa\xed\xfe" + PAYLOAD,
    "Mach-O universal binary": b"\xca\xfe\xba\xbe" + struct.pack(">I", 2) + PAYLOAD,
    "BMP image": b"BM"
    + struct.pack("<I", 1000)
    + b"\0\0\0\0"
    + struct.pack("<I", 54)
    + struct.pack("<I", 40)
    + PAYLOAD,
    "WebP image": b"RIFF" + struct.pack("<I", 1000) + b"WEBPVP8 " + PAYLOAD,
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_each_magic_type_is_named(kind):
    assert detect_binary(SAMPLES[kind]) == kind


def test_java_class_is_not_mistaken_for_mach_o():
    assert detect_binary(b"\xca\xfe\xba\xbe\x00\x00\x00\x3d" + PAYLOAD) == "Java class file"


def test_nul_bytes_are_binary():
    assert detect_binary(b"hello\x00world") == "binary data (NUL bytes)"


def test_random_non_utf8_bytes_are_binary():
    data = bytes(range(128, 256)) * 4
    assert detect_binary(data) == "binary data (not UTF-8 text)"


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii\n",
        "中文输出，日本語のテキスト，한국어\n",
        "\x1b[31mcoloured\x1b[0m output\n",
        "BMW is a text line, not a bitmap\n",
        "%PDF is mentioned here",  # no dash: not a PDF header
    ],
)
def test_text_is_not_binary(text):
    assert detect_binary(text.encode()) is None


def test_mostly_text_with_a_stray_latin1_byte_stays_text():
    listing = b"README.md\nsrc\ncaf\xe9.txt\nsetup.py\nMakefile\n"
    assert detect_binary(listing) is None


def test_utf8_character_cut_at_the_end_of_the_sample_is_not_binary():
    data = "中".encode() * 3000  # 9000 bytes: the 8192-byte sample ends mid-character
    assert detect_binary(data[:8191]) is None
    assert detect_binary(data) is None


def test_empty_is_text():
    assert detect_binary(b"") is None


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (1023, "1023 bytes"),
        (1024, "1.0 KB"),
        (1258291, "1.2 MB"),
        (1 << 30, "1.0 GB"),
    ],
)
def test_format_size(size, text):
    assert format_size(size) == text


def test_binary_note_format():
    assert binary_note("PNG image", 1258291) == "[binary output: 1.2 MB, PNG image]"
