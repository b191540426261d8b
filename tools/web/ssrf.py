"""A minimal built-in SSRF check, used only when no URL guard is configured.

The real checks live in the policy, which the session passes in as the URL guard (tools
never import the policy).  A ``WebFetchTool`` built without one, for example by a script
using the tools directly, must still not become a way into the machine or its network.  So
every hop is judged here: the host must be a public address, or a name whose resolved
addresses are all public.  This is deliberately strict and has no allow list; configure a
guard to reach a local dev server.

Known gap: the name is resolved here and again by httpx when it connects, so a DNS server
that answers differently the second time (DNS rebinding) is not caught.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: ``resolver(host, port) -> [address, ...]``; raises ``OSError`` when the name does not resolve.
Resolver = Callable[[str, int], list[str]]

#: Legacy IPv4 spellings that ``inet_aton`` (and so the system resolver) accepts: ``2130706433``,
#: ``0x7f.1``, ``0177.0.0.1``, ``127.1``.
_LEGACY_IPV4 = re.compile(r"[0-9a-fA-FxX.]+")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def literal_address(host: str) -> IPAddress | None:
    """The address ``host`` spells, in any form the system would accept, or ``None`` for a name."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _LEGACY_IPV4.fullmatch(host):
        try:
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            return None
    return None


def is_forbidden(addr: IPAddress) -> bool:
    """Loopback, private, link-local, shared, reserved, unspecified or multicast; also IPv4 hidden
    inside IPv6 (``::ffff:127.0.0.1``, 6to4, NAT64)."""
    if isinstance(addr, ipaddress.IPv6Address):
        inner = addr.ipv4_mapped or addr.sixtofour
        if inner is None and addr in _NAT64:
            inner = ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
        if inner is not None and is_forbidden(inner):
            return True
    return not addr.is_global or addr.is_multicast


def check_public(url: httpx.URL, resolver: Resolver | None) -> tuple[str, str] | None:
    """``None`` when every address of ``url``'s host is public, else ``(kind, reason)`` with kind
    ``"blocked"`` or ``"dns"`` (the name does not resolve: fail closed)."""
    host = url.host
    addr = literal_address(host)
    if addr is not None:
        if is_forbidden(addr):
            return "blocked", f"{host} is a loopback, private or otherwise non-public address"
        return None
    try:
        found = (resolver or system_resolver)(host, url.port or (443 if url.scheme == "https" else 80))
    except (OSError, UnicodeError) as exc:
        return "dns", f"DNS lookup failed for {host!r}: {exc}. Check the host name"
    if not found:
        return "dns", f"DNS lookup for {host!r} returned no address"
    for text in found:
        try:
            resolved: IPAddress | None = ipaddress.ip_address(text)
        except ValueError:
            resolved = None
        if resolved is None or is_forbidden(resolved):
            return (
                "blocked",
                f"{host} resolves to {text}, a loopback, private or otherwise non-public address",
            )
    return None
