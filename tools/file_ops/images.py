"""Preparing images for the model: EXIF orientation applied, long side bounded, base64 encoded."""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass

from tools.file_ops.binary import FileKind

#: Longest side sent to the model; larger images are downscaled (about what vision models use).
MAX_SIDE = 1568
#: Encoded images above this are re-encoded as JPEG (providers cap image payloads around 5 MB).
MAX_BYTES = 3_750_000

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


def prepare_image(data: bytes, kind: FileKind) -> PreparedImage:
    """Decode with Pillow; raises ``OSError``/``ValueError`` for images it cannot read."""
    from PIL import Image, ImageOps

    with Image.open(io.BytesIO(data)) as opened:
        opened.load()
        original = opened.size
        orientation = opened.getexif().get(0x0112, 1)
        image = ImageOps.exif_transpose(opened) or opened
        too_big = max(image.size) > MAX_SIDE
        # BMP is not accepted by model APIs; rotated or oversized images must be re-encoded.
        if not too_big and orientation in (0, 1) and kind.mime in _FORMATS and len(data) <= MAX_BYTES:
            return PreparedImage(kind.mime or "image/png", _b64(data), *image.size, *original, changed=False)
        if too_big:
            image = image.copy()
            image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
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
