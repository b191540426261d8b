"""Preparing images for the model: EXIF orientation applied, long side bounded, base64 encoded."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from cairn.errors import CairnError
from cairn.tools.file_ops.binary import FileKind

#: Longest side sent to the model; larger images are downscaled (about what vision models use).
MAX_SIDE = 1568
#: Encoded images above this are re-encoded as JPEG (providers cap image payloads around 5 MB).
MAX_BYTES = 3_750_000
#: Images that would decode to more pixels than this are refused (4 bytes a pixel: ~200 MB). A small
#: file can hold a huge image (a 12000x12000 PNG of one colour is a few hundred KB). JPEGs count after
#: draft mode, which decodes them at 1/2..1/8 scale.
MAX_PIXELS = 50_000_000

_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}


@dataclass(frozen=True)
class PreparedImage:
    mime_type: str
    base64: str
    width: int
    height: int
    original_width: int
    original_height: int
    changed: bool  # re-encoded (rotated, downscaled or converted)

    def block(self) -> dict[str, object]:
        return {"type": "image_url", "image_url": {"url": f"data:{self.mime_type};base64,{self.base64}"}}


class ImageTooLarge(CairnError, ValueError):
    """The image has too many pixels to decode safely (the message is for the model)."""


def prepare_image(data: bytes, kind: FileKind) -> PreparedImage:
    """Decode with Pillow; raises ``OSError``/``ValueError`` for images it cannot read and
    :class:`ImageTooLarge` before decoding one with too many pixels."""
    from PIL import Image, ImageOps

    try:
        opened = Image.open(io.BytesIO(data))  # reads the header only
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(f"it has too many pixels to decode ({exc})") from None
    with opened:
        original = opened.size
        too_big = max(original) > MAX_SIDE
        if too_big:
            opened.draft(None, (MAX_SIDE, MAX_SIDE))  # JPEG: decode at a reduced scale; others: no-op
        width, height = opened.size
        if width * height > MAX_PIXELS:
            raise ImageTooLarge(
                f"it is {original[0]}x{original[1]}, {original[0] * original[1] / 1e6:.1f} megapixels; "
                f"read_file decodes images up to {MAX_PIXELS // 1_000_000} megapixels"
            )
        orientation = opened.getexif().get(0x0112, 1)  # may decode a PNG: only after the size check
        # BMP is not accepted by model APIs; rotated or oversized images must be re-encoded.
        if not too_big and orientation in (0, 1) and kind.mime in _FORMATS and len(data) <= MAX_BYTES:
            opened.load()  # a broken file fails here, not at the model
            return PreparedImage(kind.mime or "image/png", _b64(data), *original, *original, changed=False)
        if too_big:
            opened.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)  # in place, no full copy
        image = ImageOps.exif_transpose(opened) or opened
        mime, payload = _encode(image, kind)
        return PreparedImage(mime, _b64(payload), *image.size, *original, changed=True)


def _encode(image, kind: FileKind) -> tuple[str, bytes]:
    fmt = _FORMATS.get(kind.mime or "", "PNG")
    if fmt == "GIF":
        fmt = "PNG"  # the first frame, losslessly
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    payload = _save(image, fmt)
    quality = 85
    while len(payload) > MAX_BYTES and quality >= 40:
        flat = image.convert("RGB") if image.mode not in ("RGB", "L") else image
        payload, fmt = _save(flat, "JPEG", quality=quality), "JPEG"
        quality -= 15
    return f"image/{fmt.lower()}", payload


def _save(image, fmt: str, **options: int) -> bytes:
    buf = io.BytesIO()
    if fmt == "JPEG":
        options.setdefault("quality", 90)
    image.save(buf, format=fmt, **options)
    return buf.getvalue()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
