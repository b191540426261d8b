"""What kind of body a response carries, and how to turn its bytes into text."""

from __future__ import annotations

import codecs
from email.message import Message

from cairn.tools.web.html import meta_charset

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset(
    {
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/x-python",
        "application/sql",
        "application/graphql",
        "application/x-ndjson",
        "application/csv",
        "application/rtf",
        "application/x-www-form-urlencoded",
    }
)
#: Families never worth reading as text; their bodies are not even downloaded when the size is known.
BINARY_PREFIXES = ("image/", "audio/", "video/", "font/", "model/")
BINARY_TYPES = frozenset(
    {
        "application/pdf",
        "application/zip",
        "application/gzip",
        "application/x-gzip",
        "application/x-tar",
        "application/x-7z-compressed",
        "application/x-bzip2",
        "application/x-xz",
        "application/wasm",
        "application/vnd.ms-excel",
        "application/msword",
        "application/x-msdownload",
        "application/java-archive",
    }
)


def parse_content_type(header: str) -> tuple[str, str | None]:
    """``"text/html; charset=UTF-8"`` -> ``("text/html", "UTF-8")``."""
    if not header:
        return "", None
    msg = Message()
    msg["content-type"] = header
    media = msg.get_content_type() if "/" in header.split(";", 1)[0] else ""
    charset = msg.get_param("charset")
    return media.lower(), str(charset) if isinstance(charset, str) else None


def declared_kind(media: str) -> str:
    """ "html", "json", "text", "binary", or "unknown" (sniff the bytes) from the media type alone."""
    if media in HTML_TYPES:
        return "html"
    if media == "application/json" or media.endswith("+json"):
        return "json"
    if media.startswith("text/") or media in TEXT_TYPES or media.endswith("+xml"):
        return "text"
    if media.startswith(BINARY_PREFIXES) or media in BINARY_TYPES or media.startswith("application/vnd."):
        return "binary"
    return "unknown"  # application/octet-stream, missing header, anything exotic


def wants_body(content_type_header: str) -> bool:
    """Whether a body of this type should be downloaded (binary types need only their size)."""
    return declared_kind(parse_content_type(content_type_header)[0]) != "binary"


def sniff_kind(body: bytes) -> str:
    """Guess the kind of an undeclared body: NUL bytes mean binary; a doctype/<html> means HTML."""
    head = body[:8192]
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "binary"
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:64].lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return "html"
    if start[:1] in (b"{", b"["):
        return "json"
    return "text"


def decode_body(body: bytes, charset: str | None, kind: str, *, truncated: bool = False) -> str:
    """Bytes to text: BOM, then the declared charset, then an HTML ``<meta>``, then UTF-8,
    falling back to cp1252 when the bytes are not UTF-8. A cut multi-byte sequence at the
    end of a truncated body is dropped rather than shown as garbage."""
    boms = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
    for bom, name in boms:
        if body.startswith(bom):
            return _decode(body, name, truncated)
    candidates = [charset, meta_charset(body) if kind == "html" else None]
    for name in candidates:
        if name and _known(name):
            return _decode(body, name, truncated)
    try:
        return codecs.getincrementaldecoder("utf-8")("strict").decode(body, final=not truncated)
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace")


#: Text codecs Python has that no web page means: they reinterpret the bytes (escapes, IDNA).
_NOT_CHARSETS = frozenset({"idna", "punycode", "unicode-escape", "raw-unicode-escape"})


def _known(name: str) -> bool:
    """Whether ``name`` is a charset to decode bytes with: a text encoding, not a bytes-to-bytes
    codec such as ``zlib`` or ``base64`` that a server may name by mistake (or on purpose)."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return False
    return bool(getattr(info, "_is_text_encoding", True)) and info.name not in _NOT_CHARSETS


#: As browsers do (WHATWG Encoding): these labels really mean windows-1252.
_AS_CP1252 = frozenset({"iso-8859-1", "iso8859-1", "latin-1", "latin1", "us-ascii", "ascii"})


def _decode(body: bytes, name: str, truncated: bool) -> str:
    if name.lower() in _AS_CP1252:
        name = "cp1252"
    return codecs.getincrementaldecoder(name)("replace").decode(body, final=not truncated)
