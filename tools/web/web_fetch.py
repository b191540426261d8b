"""The ``web_fetch`` tool: GET one URL and give the model readable text (HTML as Markdown)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, cast

from pydantic import Field

from cairn.tools.base import ArgsModel, RiskLevel, Tool, ToolContext, ToolResult
from cairn.tools.output import truncate_middle
from cairn.tools.web.content import wants_body
from cairn.tools.web.http import Fetched, FetchLimits, fetch
from cairn.tools.web.page import UNTRUSTED_NOTE, Page, _human, _size_text, extract, page_header
from cairn.tools.web.ssrf import Resolver
from cairn.tools.web.summary import PageCache, answer_from_page
from cairn.tools.web.urlcheck import ApprovalNeeded, FetchError

if TYPE_CHECKING:
    import httpx  # imported by tools/web/http.py on the first fetch

DESCRIPTION = """Fetch a web page or file over HTTP(S) and return its content as text.

- HTML is converted to Markdown (headings, lists, tables, code, links kept; images dropped); JSON and
  plain text are returned as they are; binary files (images, PDFs, archives) give only their type and size.
- Redirects are followed (at most 5), each hop checked by the URL policy; requests to private or local
  addresses may be refused or need approval. A redirect to a URL that needs approval is not followed:
  you are told where it leads, and can fetch that URL directly.
- Output is cut to `max_chars` (head and tail kept). Read-only: nothing on the machine changes.
- Use `prompt` to ask a question about the page: for a long page you get an answer written from the page
  by a second model call (marked as a summary) instead of the raw text; short pages come back whole.
- This is a plain HTTP GET: no JavaScript, cookies or logins. For local files use read_file."""


class WebFetchArgs(ArgsModel):
    url: str = Field(description="Absolute http:// or https:// URL to fetch.")
    prompt: str | None = Field(
        default=None,
        description="Optional: a question about the page; long pages are answered by a summary of the page.",
    )
    max_chars: int = Field(
        default=20_000,
        ge=200,
        le=50_000,
        description="Most characters of page text to return; longer text keeps its head and tail.",
    )


class WebFetchTool(Tool):
    name = "web_fetch"
    plan_mode = True
    description = DESCRIPTION
    args_schema = WebFetchArgs
    risk_level = RiskLevel.MEDIUM
    read_only = True
    concurrency_safe = True
    idempotent = True
    aliases = ("WebFetch", "fetch", "fetch_url")
    search_hint = "download read web page url http documentation"
    max_output_chars = 52_000  # max_chars plus the header lines

    # Limits; instances (tests) may override them.
    connect_timeout: float = 10.0
    total_timeout: float = 30.0
    max_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5
    #: Test seam: an httpx transport used instead of the network (e.g. ``httpx.MockTransport``).
    transport: httpx.BaseTransport | None = None
    #: Test seam: ``resolver(host, port) -> [address, ...]`` for the built-in check (no guard).
    resolver: Resolver | None = None

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.cache = PageCache()

    def run(self, params: WebFetchArgs, ctx: ToolContext) -> ToolResult:
        url = params.url.strip()
        limits = FetchLimits(self.connect_timeout, self.total_timeout, self.max_bytes, self.max_redirects)
        fetched = self.cache.get(url)
        if fetched is None:
            ctx.progress(f"fetching {url}")
            try:
                fetched = self._fetch(url, limits, ctx)
            except ApprovalNeeded as exc:
                return redirect_needs_approval(url, exc)
            except FetchError as exc:
                return ToolResult.fail(str(exc), kind=exc.kind, url=url, redirects=exc.redirects)
            self.cache.put(url, fetched)
        try:
            page = extract(fetched, ctx.cancel)
            if params.prompt and page.is_text and len(page.text) > self.services.summarize_over_chars:
                answer = answer_from_page(page, params.prompt, limits, self.services.summarize, ctx)
                if answer is not None:
                    return answer
            return render_page(page, params, limits)
        except InterruptedError:
            return ToolResult.fail(f"Fetch of {url} cancelled.", kind="cancelled", url=url)

    def _fetch(self, url: str, limits: FetchLimits, ctx: ToolContext) -> Fetched:
        """Run the fetch in a worker thread so a cancel (Ctrl-C) returns at once even while a
        read is blocked; the worker sees ``stop`` at its next chunk and is bounded by the timeout."""
        if ctx.cancel.is_set():
            raise FetchError("cancelled", "Fetch cancelled before it started.")
        stop = threading.Event()
        done = threading.Event()
        box: dict[str, object] = {}

        def work() -> None:
            try:
                box["result"] = fetch(
                    url,
                    guard=self.services.url_guard,
                    stop=stop,
                    limits=limits,
                    want_body=wants_body,
                    transport=self.transport,
                    resolver=self.resolver,
                )
            except BaseException as exc:
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name=f"web_fetch {ctx.call_id}", daemon=True).start()
        hard_deadline = time.monotonic() + limits.total_timeout + 2.0
        while not done.wait(0.05):
            if ctx.cancel.is_set():
                stop.set()
                raise FetchError("cancelled", f"Fetch of {url} cancelled.")
            if time.monotonic() > hard_deadline:
                stop.set()
                raise FetchError("timeout", f"Timed out after {limits.total_timeout:g} s fetching {url}.")
        error = box.get("error")
        if isinstance(error, BaseException):
            raise error
        return cast(Fetched, box["result"])


def redirect_needs_approval(url: str, exc: ApprovalNeeded) -> ToolResult:
    """Not an error: the page moved somewhere the person has to approve first."""
    lines = [f"URL: {url}"]
    if len(exc.redirects) > 1:
        lines.append(f"Redirected through: {' -> '.join(exc.redirects)}")
    lines += [
        f"{exc.redirects[-1]} redirects to {exc.target}, which needs approval ({exc.reason}), "
        "so it was not fetched.",
        f'To read it, fetch that URL directly: call web_fetch with url="{exc.target}" '
        "(the person will be asked to approve it).",
    ]
    return ToolResult(
        output="\n".join(lines),
        display=f"redirect to {exc.target} needs approval",
        metadata={
            "url": url,
            "kind": "needs_approval",
            "redirect_to": exc.target,
            "reason": exc.reason,
            "redirects": exc.redirects,
        },
    )


def render(
    fetched: Fetched, params: WebFetchArgs, limits: FetchLimits, cancel: threading.Event | None = None
) -> ToolResult:
    """Turn a response into the model's text (or an error for 4xx/5xx)."""
    return render_page(extract(fetched, cancel), params, limits)


def render_page(page: Page, params: WebFetchArgs, limits: FetchLimits) -> ToolResult:
    fetched, kind, size, text, meta = page.fetched, page.kind, page.size, page.text, dict(page.meta)
    title, media = page.title, page.media
    if fetched.status >= 400:
        excerpt = " ".join(text.split())[:500] or "(empty body)"
        return ToolResult.fail(
            f"HTTP {fetched.status} {fetched.reason} for {fetched.url}\nResponse excerpt: {excerpt}",
            **meta,
        )
    header = page_header(page, limits)
    if params.prompt:
        header.append(f"Looking for: {params.prompt.strip()}")
    if fetched.truncated and kind != "binary":
        header.append(f"Note: the body was cut at {_human(limits.max_bytes)}; the text below is partial.")
    if kind != "binary":
        header.append(UNTRUSTED_NOTE)
    body = _body_text(kind, text, media, size, fetched.truncated)
    shown = truncate_middle(body, params.max_chars)
    meta["title"] = title
    meta["output_truncated"] = shown != body
    display = f"{fetched.status} {fetched.url} · {kind} · {_size_text(size, fetched.truncated)}"
    return ToolResult(output="\n".join(header) + "\n\n" + shown, display=display, metadata=meta)


def _body_text(kind: str, text: str, media: str, size: int | None, truncated: bool) -> str:
    if kind == "binary":
        return (
            f"[Binary content ({media or 'unknown type'}, {_size_text(size, truncated)}) is not shown: "
            "web_fetch returns text only.]"
        )
    if text.strip():
        return text
    if kind == "html":
        return "[The page has no text content; it may be rendered by JavaScript.]"
    return "[Empty body.]"
