"""Fetching one URL safely: redirects followed by hand, each hop checked, bounded time and size.

httpx runs with ``follow_redirects=False`` so that every hop goes through the URL
check (``urlcheck.py``: the guard, or without one a built-in SSRF check), because a
redirect to ``169.254.169.254`` must be judged like a direct request.  Failures are
raised as :class:`FetchError` with a ``kind`` the tool turns into an error message for
the model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cairn.tools.services import UrlGuard
from cairn.tools.web.decode import ACCEPT_ENCODING, BoundedDecoder, EncodingError
from cairn.tools.web.ssrf import Resolver
from cairn.tools.web.urlcheck import FetchError, check_url, resolve_once

if TYPE_CHECKING:
    import httpx

    from cairn.tools.web.pinning import PinnedBackend

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "cairn-agent/0.1 (web_fetch; +https://pypi.org/project/cairn-agent/)"
ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5"


@dataclass
class FetchLimits:
    connect_timeout: float = 10.0
    total_timeout: float = 30.0
    max_bytes: int = 5 * 1024 * 1024
    max_redirects: int = 5


@dataclass
class Fetched:
    """The final response of a fetch (after redirects), with its body read up to a cap."""

    url: str
    status: int
    reason: str
    content_type: str  # the raw Content-Type header ("" when absent)
    body: bytes
    truncated: bool  # the body went past the cap and was cut
    declared_size: int | None  # Content-Length, when the server sent one
    redirects: list[str] = field(default_factory=list)  # URLs hopped through, in order
    body_read: bool = True  # False when the body was skipped (known binary type)


#: Decides from the Content-Type whether the body is worth reading (binary types are not).
WantBody = Callable[[str], bool]


def fetch(
    url: str,
    *,
    guard: UrlGuard | None,
    stop: threading.Event,
    limits: FetchLimits,
    want_body: WantBody,
    transport: httpx.BaseTransport | None = None,
    resolver: Resolver | None = None,
) -> Fetched:
    """GET ``url``, following up to ``limits.max_redirects`` redirects, each one checked."""
    import httpx  # on the first fetch, not when the tool is registered

    deadline = time.monotonic() + limits.total_timeout
    redirects: list[str] = []
    seen = {url}
    # Only encodings that decode.BoundedDecoder can inflate within the cap (never br or zstd).
    headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Encoding": ACCEPT_ENCODING}
    backend: PinnedBackend | None = None
    if transport is None:  # the real network: resolve once, check, connect to what was checked
        from cairn.tools.web.pinning import PinnedBackend, pinned_transport  # httpcore: on first fetch

        backend = PinnedBackend()
        transport = pinned_transport(backend)
    with httpx.Client(follow_redirects=False, headers=headers, transport=transport) as client:
        for hop in range(limits.max_redirects + 1):
            if backend is not None:
                addresses = resolve_once(url, resolver, redirects)
                fixed: Resolver = lambda _host, _port, found=addresses: list(found)  # noqa: E731
                check_url(url, guard, hop, redirects, fixed, addresses=addresses)
                backend.pin(httpx.URL(url).host, addresses)
            else:
                check_url(url, guard, hop, redirects, resolver)
            response = _open(client, url, deadline, limits, stop, redirects)
            try:
                if response.status_code not in REDIRECT_CODES:
                    return _read(response, url, deadline, limits, stop, want_body, redirects)
                location = response.headers.get("location")
            finally:
                response.close()
            if not location:
                raise FetchError(
                    "bad_redirect", f"{url} answered {response.status_code} without a Location header."
                )
            redirects.append(url)
            try:
                url = str(httpx.URL(url).join(location))
            except Exception as exc:
                raise FetchError(
                    "bad_redirect",
                    f"{url} redirected to an invalid URL {location!r}: {exc}",
                    redirects=redirects,
                ) from exc
            if url in seen:
                chain = " -> ".join([*redirects, url])
                raise FetchError("redirect_loop", f"Redirect loop: {chain}", redirects=redirects)
            seen.add(url)
    chain = " -> ".join([*redirects, url])
    raise FetchError(
        "too_many_redirects",
        f"Too many redirects (more than {limits.max_redirects}): {chain}",
        redirects=redirects,
    )


def _remaining(deadline: float, url: str, total: float, redirects: list[str]) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError("timeout", f"Timed out after {total:g} s fetching {url}.", redirects=redirects)
    return left


def _open(
    client: httpx.Client,
    url: str,
    deadline: float,
    limits: FetchLimits,
    stop: threading.Event,
    redirects: list[str],
) -> httpx.Response:
    import httpx

    if stop.is_set():
        raise FetchError("cancelled", "Fetch cancelled.", redirects=redirects)
    left = _remaining(deadline, url, limits.total_timeout, redirects)
    timeout = httpx.Timeout(left, connect=min(limits.connect_timeout, left))
    try:
        request = client.build_request("GET", url, timeout=timeout)
        return client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        what = "Connecting to" if isinstance(exc, httpx.ConnectTimeout) else "Fetching"
        raise FetchError("timeout", f"{what} {url} timed out.", redirects=redirects) from exc
    except httpx.ConnectError as exc:
        raise _connect_error(url, exc, redirects) from exc
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise FetchError("connect", f"Request to {url} failed: {exc}", redirects=redirects) from exc


_DNS_MARKERS = (
    "name or service not known",
    "nodename nor servname",
    "temporary failure in name resolution",
    "getaddrinfo failed",
    "no address associated",
    "name resolution",
)


def _connect_error(url: str, exc: httpx.ConnectError, redirects: list[str]) -> FetchError:
    import httpx

    host = httpx.URL(url).host
    text = str(exc)
    if any(marker in text.lower() for marker in _DNS_MARKERS):
        return FetchError(
            "dns", f"DNS lookup failed for {host!r}: {text}. Check the host name.", redirects=redirects
        )
    return FetchError("connect", f"Could not connect to {host!r}: {text}", redirects=redirects)


def _raw_chunks(response: httpx.Response) -> Iterator[bytes]:
    """The body as sent (still encoded).  A response made in memory (``httpx.MockTransport``
    with ``content=``) was read when it was built, but its stream still holds the raw bytes."""
    if response.is_stream_consumed:  # only in-memory streams can be iterated again
        yield from response.stream  # type: ignore[misc]
    else:
        yield from response.iter_raw()


def _read(
    response: httpx.Response,
    url: str,
    deadline: float,
    limits: FetchLimits,
    stop: threading.Event,
    want_body: WantBody,
    redirects: list[str],
) -> Fetched:
    import httpx

    content_type = response.headers.get("content-type", "")
    length = response.headers.get("content-length")
    declared = int(length) if length and length.isdigit() else None
    # Error pages are only shown as an excerpt; skip reading a known-binary body if its size is known.
    cap = limits.max_bytes if response.status_code < 400 else min(limits.max_bytes, 64 * 1024)
    keep = want_body(content_type)
    result = Fetched(url, response.status_code, response.reason_phrase, content_type, b"", False, declared)
    result.redirects = redirects
    if not keep and declared is not None:
        result.body_read = False
        return result
    chunks: list[bytes] = []
    size = 0
    try:
        # Raw bytes, inflated here at most to cap + 1: httpx's own decoding has no output bound.
        decoder = BoundedDecoder(response.headers.get("content-encoding", ""), cap + 1)
        for raw in _raw_chunks(response):
            if stop.is_set():
                raise FetchError("cancelled", "Fetch cancelled.", redirects=redirects)
            _remaining(deadline, url, limits.total_timeout, redirects)
            for chunk in decoder.feed(raw):
                size += len(chunk)
                if keep:
                    chunks.append(chunk)
            if size > cap:
                result.truncated = True
                break
    except EncodingError as exc:
        raise FetchError("bad_encoding", f"Reading {url} failed: {exc}.", redirects=redirects) from exc
    except httpx.TimeoutException as exc:
        raise FetchError("timeout", f"Reading {url} timed out.", redirects=redirects) from exc
    except httpx.HTTPError as exc:
        raise FetchError("connect", f"Reading {url} failed: {exc}", redirects=redirects) from exc
    result.body = b"".join(chunks)[:cap]
    result.body_read = keep
    if not keep:
        result.declared_size = size if not result.truncated else None
    return result
