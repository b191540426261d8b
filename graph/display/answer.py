"""The model's answer as HTML for notebooks: its Markdown rendered, and nothing it can abuse.

JupyterLab prefers ``text/html`` over ``text/markdown``, so the HTML view renders the answer's
Markdown itself (markdown-it-py, CommonMark plus tables and strikethrough) instead of showing
``##`` and ``**``. The answer is untrusted text:

- raw HTML is not passed through (``html=False``): ``<script>`` or ``<img onerror=...>`` in the
  answer is shown as text;
- links keep only ``http``, ``https`` and ``mailto`` addresses (or none: ``#anchor``, relative);
  anything else (``javascript:``, ``data:``, ``file:``...) is left as plain text;
- Markdown images become links, so no address is loaded by showing the answer (tracking pixels).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from cairn.tools.file_ops.names import escape_text

_SAFE_SCHEMES = ("http", "https", "mailto")
_SCHEME = re.compile(r"^\s*([a-zA-Z][a-zA-Z0-9+.-]*):")


def safe_link(url: str) -> bool:
    """Only web and mail addresses, or addresses without a scheme (anchors, relative paths)."""
    cleaned = "".join(ch for ch in url if ch.isprintable() and not ch.isspace())
    match = _SCHEME.match(cleaned)
    return match is None or match.group(1).lower() in _SAFE_SCHEMES


@lru_cache(maxsize=2)
def markdown_parser(*, untrusted_html: bool) -> Any:
    """The one markdown-it set-up: CommonMark with tables and strikethrough (as rich renders).

    ``untrusted_html``: for HTML output (notebooks) no raw HTML, no images, safe links only; the
    terminal renderer (``cairn.graph.apps.cli.tui.mdstream``) gets the plain parser rich itself uses.
    """
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": not untrusted_html, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    if untrusted_html:
        md.disable("image")  # ![alt](url) reads as "!" and a link: nothing loads by itself
        md.validateLink = safe_link
    return md


def answer_html(text: str) -> str:
    """``text`` (the model's Markdown) as safe HTML."""
    return markdown_parser(untrusted_html=True).render(escape_text(text))
