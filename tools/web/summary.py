"""``web_fetch`` with a question: a long page is answered by a model call, and pages are cached.

The model call itself is the graph's (``ToolServices.summarize``, set by the Session): tools
never build models.  The answer is marked as a summary, with the URL, so the model knows it
did not see the page itself; its tokens count in the session's usage (``metadata["usage"]``).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from cairn.tools.base import ToolContext, ToolResult
from cairn.tools.services import PageSummarizer
from cairn.tools.web.page import UNTRUSTED_NOTE, Page, page_header

if TYPE_CHECKING:
    from cairn.tools.web.http import Fetched, FetchLimits

#: Pages are reused for this long within a session (a follow-up question costs no second fetch).
CACHE_SECONDS = 15 * 60
CACHE_ENTRIES = 32


class PageCache:
    """Recently fetched successful responses of one session, by URL."""

    def __init__(self, seconds: float = CACHE_SECONDS, entries: int = CACHE_ENTRIES) -> None:
        self.seconds = seconds
        self.entries = entries
        self._pages: OrderedDict[str, tuple[float, Fetched]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> Fetched | None:
        with self._lock:
            hit = self._pages.get(url)
            if hit is None:
                return None
            if time.monotonic() - hit[0] > self.seconds:
                del self._pages[url]
                return None
            return hit[1]

    def put(self, url: str, fetched: Fetched) -> None:
        if fetched.status >= 400:
            return
        with self._lock:
            self._pages[url] = (time.monotonic(), fetched)
            self._pages.move_to_end(url)
            while len(self._pages) > self.entries:
                self._pages.popitem(last=False)


def answer_from_page(
    page: Page,
    question: str,
    limits: FetchLimits,
    summarize: PageSummarizer | None,
    ctx: ToolContext,
) -> ToolResult | None:
    """The model's answer to ``params.prompt`` from the page, or ``None`` to return the page itself
    (no summarizer, or the summary call failed: the page is the honest fallback)."""
    if summarize is None or ctx.cancel.is_set():
        return None
    question = question.strip()
    ctx.progress(f"answering from the page: {question[:60]}")
    try:
        summary = summarize(page.fetched.url, question, page.text)
    except Exception as exc:  # any model failure: fall back to the page
        page.meta["summary_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return None
    if not summary.text.strip():
        return None
    header = page_header(page, limits)
    header.append(f"Question: {question}")
    by = f" by {summary.model}" if summary.model else ""
    header.append(
        f"Note: this is a summary written{by} from the page ({len(page.text):,} characters of Markdown), "
        "not the page itself. Fetch without `prompt` to read the page."
    )
    header.append(UNTRUSTED_NOTE)
    meta: dict[str, Any] = {
        **page.meta,
        "title": page.title,
        "summary": True,
        "page_chars": len(page.text),
        "usage": {"input_tokens": summary.input_tokens, "output_tokens": summary.output_tokens},
    }
    display = f"{page.fetched.status} {page.fetched.url} · answered from {len(page.text):,} chars"
    return ToolResult(
        output="\n".join(header) + "\n\n" + summary.text.strip(), display=display, metadata=meta
    )
