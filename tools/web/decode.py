"""Undoing ``Content-Encoding`` without ever holding more than the download cap.

httpx would decompress each network chunk in full before the caller sees it, so a 100 KB
gzip body of one repeated byte becomes 100 MB in one step (and with ``zstandard``
installed httpx even advertises zstd).  web_fetch therefore asks only for
``gzip, deflate``, reads the raw bytes, and inflates them here with ``zlib``'s
``max_length`` so that output stops at the cap however small the input is.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from cairn.errors import CairnError

#: What web_fetch sends as ``Accept-Encoding``; anything else in a response is refused.
ACCEPT_ENCODING = "gzip, deflate"
_IDENTITY = ("", "identity")


class EncodingError(CairnError):
    """The response used an encoding that was not requested, or its compressed data is broken."""


class BoundedDecoder:
    """Incremental decoder for one ``Content-Encoding`` value that yields at most ``limit`` bytes.

    ``feed(raw)`` yields decoded pieces; the caller stops once it has more than it wants
    (pass ``limit`` = cap + 1 to notice truncation).  Input a piece did not use is kept
    for the next call, so nothing is inflated past the limit.
    """

    def __init__(self, encoding: str, limit: int) -> None:
        name = encoding.strip().lower()
        if name not in (*_IDENTITY, "gzip", "x-gzip", "deflate"):
            raise EncodingError(
                f"the server sent Content-Encoding {encoding!r}, which was not requested "
                f"(web_fetch accepts {ACCEPT_ENCODING} or none)"
            )
        self.name = name
        self.left = limit
        self._inflate: zlib._Decompress | None = None
        self._pending = b""  # a lone first byte of a stream, until two can be looked at
        self._members = 0  # compressed streams (gzip members) finished so far
        self._done = False  # the compressed data ended; anything after it is ignored

    def _decompressor(self, head: bytes) -> zlib._Decompress:
        if self.name in ("gzip", "x-gzip"):
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        # RFC 9110 "deflate" is the zlib format, but some servers send a raw deflate stream.
        zlib_header = head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_header else -zlib.MAX_WBITS)

    def feed(self, raw: bytes) -> Iterator[bytes]:
        if self.name in _IDENTITY:
            piece = raw[: self.left]
            self.left -= len(piece)
            if piece:
                yield piece
            return
        data = self._pending + raw
        self._pending = b""
        while data and self.left > 0 and not self._done:
            if self._inflate is None:
                if len(data) < 2:
                    self._pending = data
                    return
                if self._members and not data.startswith(b"\x1f\x8b"):
                    self._done = True  # bytes after the last gzip member are ignored, as browsers do
                    return
                self._inflate = self._decompressor(data)
            try:
                piece = self._inflate.decompress(data, self.left)  # max_length: never more than left
            except zlib.error as exc:
                raise EncodingError(f"the {self.name} data is corrupt ({exc})") from exc
            self.left -= len(piece)
            if piece:
                yield piece
            if not self._inflate.eof:
                data = self._inflate.unconsumed_tail
                continue
            # A gzip body may hold several members back to back; a deflate stream ends here.
            data = self._inflate.unused_data
            self._inflate = None
            self._members += 1
            self._done = self.name == "deflate"
