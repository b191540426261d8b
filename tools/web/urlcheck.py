"""Whether one URL of a fetch (the first, or a redirect hop) may be requested.

With a URL guard (the session passes one built on the policy), the guard decides.  It
returns ``None`` (allowed), ``"deny: reason"``, ``"ask: reason"``, or a plain reason (the
original contract, which means deny).  "ask" on the first URL proceeds: the call itself
was approved, by the person or a rule, before it ran.  "ask" on a redirect hop stops the
fetch with :class:`ApprovalNeeded`, so the model can fetch that URL as a call of its own.

Without a guard, a built-in check (``ssrf.py``) allows only public addresses.  Either way,
only absolute http(s) URLs pass, and a redirect may not add credentials (``user:pw@``).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from cairn.errors import CairnError
from cairn.tools.services import UrlGuard
from cairn.tools.web.ssrf import Resolver, check_public, literal_address, system_resolver

if TYPE_CHECKING:
    import httpx


class FetchError(CairnError):
    """A fetch that did not produce a response. ``kind`` is one of: bad_url, blocked, dns,
    connect, timeout, too_many_redirects, redirect_loop, bad_redirect, bad_encoding, cancelled,
    http_error."""

    def __init__(self, kind: str, message: str, *, redirects: list[str] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.redirects = redirects or []


class ApprovalNeeded(FetchError):
    """The guard answered "ask" for a redirect hop: the fetch stops there, and the model is told
    to fetch ``target`` directly (which then goes through the person's approval)."""

    def __init__(self, target: str, reason: str, redirects: list[str]) -> None:
        super().__init__(
            "needs_approval", f"Redirect to {target} needs approval: {reason}", redirects=redirects
        )
        self.target = target
        self.reason = reason


def guard_verdict(answer: str | None) -> tuple[str, str]:
    """A guard's answer as ``(decision, reason)``: ``None``/``""`` allow; ``"ask: why"`` ask;
    ``"deny: why"`` or any other text (the older contract: a plain reason) deny."""
    if not answer:
        return "allow", ""
    head, sep, rest = answer.partition(":")
    decision = head.strip().lower()
    if sep and decision in ("ask", "deny"):
        return decision, rest.strip() or decision
    return "deny", answer.strip()


def _redacted(url: httpx.URL) -> str:
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)


def resolve_once(url: str, resolver: Resolver | None, redirects: list[str]) -> list[str]:
    """The addresses of ``url``'s host, resolved once for both the check and the connection
    (the caller pins the connection to them).  A literal address is its own answer."""
    import httpx  # on the first fetch: policy and registry imports stay light

    try:
        parsed = httpx.URL(url)
    except Exception as exc:
        raise FetchError("bad_url", f"Invalid URL {url!r}: {exc}", redirects=redirects) from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return []  # check_url refuses it with the right message
    literal = literal_address(parsed.host)
    if literal is not None:
        return [str(literal)]
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        found = (resolver or system_resolver)(parsed.host, port)
    except (OSError, UnicodeError) as exc:
        raise FetchError(
            "dns", f"DNS lookup failed for {parsed.host!r}: {exc}. Check the host name.", redirects=redirects
        ) from exc
    if not found:
        raise FetchError("dns", f"DNS lookup for {parsed.host!r} returned no address.", redirects=redirects)
    return list(dict.fromkeys(found))


def _ask_guard(guard: UrlGuard, url: str, addresses: list[str] | None) -> str | None:
    """Call the guard with the addresses that will be connected to, when it accepts them."""
    if addresses is not None:
        try:
            inspect.signature(guard).bind(url, addresses=addresses)
        except (TypeError, ValueError):
            return guard(url)
        return guard(url, addresses=addresses)  # type: ignore[call-arg]
    return guard(url)


def check_url(
    url: str,
    guard: UrlGuard | None,
    hop: int,
    redirects: list[str],
    resolver: Resolver | None = None,
    *,
    addresses: list[str] | None = None,
) -> None:
    """Raise ``FetchError`` if ``url`` may not be requested. Called before every request.

    Without a guard, only public addresses pass (see ``ssrf.py``).  With one, the guard
    decides; "ask" on the first URL proceeds (the call itself was approved before it ran),
    "ask" on a redirect hop raises :class:`ApprovalNeeded`.
    """
    import httpx

    try:
        parsed = httpx.URL(url)
    except Exception as exc:
        raise FetchError("bad_url", f"Invalid URL {url!r}: {exc}", redirects=redirects) from exc
    where = "URL" if hop == 0 else f"Redirect hop {hop} to {_redacted(parsed)}"
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise FetchError(
            "bad_url" if hop == 0 else "blocked",
            f"{where} refused: only absolute http:// and https:// URLs can be fetched "
            f"(got {_redacted(parsed)!r}).",
            redirects=redirects,
        )
    if parsed.userinfo and (hop > 0 or guard is None) and not _same_credentials(parsed, redirects):
        raise FetchError(
            "blocked",
            f"{where} refused: the URL carries credentials (user:password@). "
            + ("A redirect may not add them." if hop else "Without a URL policy they are not sent."),
            redirects=redirects,
        )
    if guard is None:
        refused = check_public(parsed, resolver)
        if refused is None:
            return
        kind, reason = refused
        if kind == "blocked":
            reason = (
                f"{where} refused: {reason}. "
                "No URL policy is configured, so web_fetch fetches only public addresses"
            )
        raise FetchError(kind, f"{reason}.", redirects=redirects)
    try:
        decision, reason = guard_verdict(_ask_guard(guard, url, addresses))
    except Exception as exc:  # a broken guard fails closed
        decision, reason = "deny", f"URL check failed ({type(exc).__name__}: {exc})"
    if decision == "deny":
        raise FetchError("blocked", f"{where} blocked by the URL policy: {reason}", redirects=redirects)
    if decision == "ask" and hop > 0:
        raise ApprovalNeeded(url, reason, list(redirects))


def _same_credentials(url: httpx.URL, redirects: list[str]) -> bool:
    """A relative redirect keeps the credentials of the URL it came from (same host): allowed."""
    if not redirects:
        return False
    import httpx

    previous = httpx.URL(redirects[-1])
    return previous.userinfo == url.userinfo and previous.host == url.host and previous.port == url.port
