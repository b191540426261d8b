"""HTML to Markdown for the model: html2text with links kept (made absolute) and images dropped."""

from __future__ import annotations

import html as html_lib
import re
import threading

_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")


_FEED_CHUNK = 256 * 1024


def html_to_markdown(text: str, base_url: str = "", cancel: threading.Event | None = None) -> str:
    """Convert an HTML document to Markdown: headings, lists, tables, code, links.

    Relative links are resolved against ``base_url``; images (often huge ``data:``
    URIs) and in-page anchors are dropped; ``<script>``/``<style>`` never appear.
    The document is fed in slices so a cancel stops a long conversion (about 1 MB/s):
    raises ``InterruptedError`` when ``cancel`` is set.
    """
    import html2text  # on the first page converted, not when web_fetch is registered

    converter = html2text.HTML2Text(baseurl=base_url)
    converter.ignore_images = True
    converter.ignore_links = False
    converter.skip_internal_links = True
    converter.body_width = 0  # no hard wrapping: the model reads long lines fine
    converter.unicode_snob = True  # keep non-ASCII characters instead of ASCII look-alikes
    converter.single_line_break = False
    # What HTML2Text.handle does, fed in slices (the parser keeps partial tags between feeds).
    converter.start = True
    for start in range(0, len(text), _FEED_CHUNK):
        if cancel is not None and cancel.is_set():
            raise InterruptedError("HTML conversion cancelled")
        converter.feed(text[start : start + _FEED_CHUNK])
    converter.feed("")
    markdown = converter.optwrap(converter.finish())
    return _BLANK_RUNS.sub("\n\n", markdown).strip()


def html_title(text: str) -> str:
    """The document's ``<title>``, unescaped and on one line ("" if none)."""
    match = _TITLE.search(text[:200_000])
    if not match:
        return ""
    return " ".join(html_lib.unescape(match.group(1)).split())[:300]


def meta_charset(head: bytes) -> str | None:
    """The charset an HTML document declares in a ``<meta>`` tag near its start, if any."""
    match = _META_CHARSET.search(head[:4096])
    return match.group(1).decode("ascii", "replace") if match else None
