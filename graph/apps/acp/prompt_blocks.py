"""The editor's prompt (ACP content blocks) as the text cairn sends to the model.

Text is sent as it is; a resource link becomes a mention of the file (the model reads it with its
tools, through the policy); an embedded resource (the editor's ``@file`` context, unsaved buffers
included) is inlined in a ``<context>`` block; an image is stored in the session's outputs
directory, which the model may read without asking, and named so the model opens it with
``read_file`` (which returns images as images).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

_IMAGE_SUFFIX = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


def prompt_text(blocks: list[Any], image_dir: Path) -> str:
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"[@{block.name}]({_where(block.uri)})")
        elif kind == "resource":
            parts.append(_embedded(block.resource))
        elif kind == "image":
            parts.append(_image(block, image_dir))
        else:  # audio: not something cairn's models take
            parts.append(f"[{kind} content omitted: cairn does not accept it]")
    return "\n\n".join(p for p in parts if p)


def _where(uri: str) -> str:
    """A ``file://`` URI as its path (what the tools take); other URIs as they are."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" else uri


def _embedded(resource: Any) -> str:
    uri = _where(getattr(resource, "uri", ""))
    text = getattr(resource, "text", None)
    if text is None:
        return f"[attached binary resource {uri}: not shown]"
    return f'<context uri="{uri}">\n{text}\n</context>'


def _image(block: Any, image_dir: Path) -> str:
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        return "[an attached image could not be decoded]"
    suffix = _IMAGE_SUFFIX.get(str(block.mime_type).lower(), ".img")
    path = image_dir / f"image-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    try:
        image_dir.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    except OSError as exc:
        return f"[an attached image could not be stored: {exc.strerror or exc}]"
    return f"[attached image: {path} (open it with read_file)]"
