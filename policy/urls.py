"""URL checks for web tools: scheme, host forms and SSRF.

``check_url`` is pure apart from DNS, which goes through ``resolver`` (a callable returning the
addresses of a host name; ``None`` means the system resolver, :func:`no_dns` skips resolution).
The web tool calls it (through the guard the graph builds) for every redirect hop.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from cairn.policy.levels import Decision, RiskLevel, Verdict
from cairn.policy.matching import domain_matches
from cairn.policy.rules import Rules

__all__ = ["Resolver", "check_url", "no_dns", "parse_ipv4", "system_resolver"]

Resolver = Callable[[str], Iterable[str]]

_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa", ".lan", ".intranet")
_LOCAL_NAMES = {
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
}
#: Public wildcard DNS services that answer with the IP written in the name (127.0.0.1.nip.io).
_WILDCARD_DNS = (
    "nip.io",
    "sslip.io",
    "xip.io",
    "traefik.me",
    "localtest.me",
    "lvh.me",
    "vcap.me",
    "lacolhost.com",
)
_LOOPBACK_SERVICES = ("localtest.me", "lvh.me", "vcap.me", "lacolhost.com")
_NUMBER = re.compile(r"^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$")


def no_dns(host: str) -> list[str]:
    """A resolver that resolves nothing: only the URL's own text is checked."""
    return []


def system_resolver(host: str) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return [str(info[4][0]) for info in infos]


def parse_ipv4(text: str) -> ipaddress.IPv4Address | None:
    """Parse IPv4 the way ``inet_aton`` does: ``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``."""
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or any(not _NUMBER.match(p) for p in parts):
        return None
    values = []
    for p in parts:
        if p.startswith("0x"):
            values.append(int(p[2:] or "0", 16))
        elif len(p) > 1 and p.startswith("0"):
            values.append(int(p, 8))
        else:
            values.append(int(p))
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    number = number * 256 ** (4 - len(head)) + last
    return ipaddress.IPv4Address(number)


def _embedded_v4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if addr.ipv4_mapped:
        return addr.ipv4_mapped
    if addr.sixtofour:
        return addr.sixtofour
    if addr.teredo:
        return addr.teredo[1]
    packed = addr.packed
    if packed[:12] == b"\x00" * 12 and addr != ipaddress.IPv6Address("::1"):  # IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed[12:])
    if addr in ipaddress.IPv6Network("64:ff9b::/96") or addr in ipaddress.IPv6Network("64:ff9b:1::/48"):
        return ipaddress.IPv4Address(packed[12:])
    return None


def _address_problem(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    if isinstance(addr, ipaddress.IPv6Address):
        inner = _embedded_v4(addr)
        if inner is not None:
            problem = _address_problem(inner)
            return f"embeds {inner}, {problem}" if problem else None
        if addr.scope_id:
            return "is a scoped (link-local) IPv6 address"
    if addr.is_loopback:
        return "is a loopback address"
    if addr.is_link_local:
        return "is link-local (cloud metadata lives at 169.254.169.254)"
    if addr.is_unspecified:
        return "is the unspecified address (reaches this machine)"
    if addr.is_private:
        return "is a private network address"
    if addr.is_multicast or addr.is_reserved or not addr.is_global:
        return "is not a public internet address"
    return None


def _host_ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if host.startswith("[") and host.endswith("]"):
        try:
            return ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            return None
    try:
        return ipaddress.IPv6Address(host)
    except ValueError:
        pass
    return parse_ipv4(host)


def _name_problem(host: str) -> str | None:
    if host in _LOCAL_NAMES or host.endswith(_LOCAL_SUFFIXES):
        return f"{host} is a local or internal host name"
    for service in _WILDCARD_DNS:
        if host == service or host.endswith("." + service):
            if service in _LOOPBACK_SERVICES:
                return f"{host} resolves to a loopback address"
            label = host[: -len(service) - 1]
            for candidate in (label, label.replace("-", "."), label.split(".")[-1].replace("-", ".")):
                m = re.search(r"(\d{1,3}[.-]\d{1,3}[.-]\d{1,3}[.-]\d{1,3}|0x[0-9a-f]{8})$", candidate)
                if m:
                    ip = parse_ipv4(m.group(1).replace("-", "."))
                    if ip is not None and _address_problem(ip):
                        return f"{host} names the address {ip}, which {_address_problem(ip)}"
    return None


def _ssrf_problem(host: str, resolver: Resolver) -> str | None:
    ip = _host_ip(host)
    if ip is not None:
        problem = _address_problem(ip)
        return f"host {host} ({ip}) {problem}" if problem else None
    problem = _name_problem(host)
    if problem:
        return problem
    for text in resolver(host):
        try:
            addr = ipaddress.ip_address(text.split("%")[0])
        except ValueError:
            continue
        problem = _address_problem(addr)
        if problem:
            return f"host {host} resolves to {addr}, which {problem}"
    return None


def _normalize_host(raw: str) -> tuple[str | None, str | None]:
    """Lower-case, NFKC-fold (fullwidth digits, circled letters) and IDNA-check a host."""
    host = unicodedata.normalize("NFKC", raw).lower().rstrip(".")
    if not host:
        return None, "the URL has no host"
    if "%" in host:
        return None, f"host {raw!r} is percent-encoded"
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None, f"host {raw!r} is not a valid international domain name"
    return host, None


def _is_wildcard(spec: str | None) -> bool:
    return spec is None or "*" in spec


def check_url(url: str, *, rules: Rules | None = None, resolver: Resolver | None = None) -> Verdict:
    """The verdict for fetching ``url``: deny for bad schemes and internal hosts (unless an allow
    rule names the host), otherwise ask, or allow when a ``web_fetch(domain:...)`` rule matches."""
    rules = rules or Rules()
    resolver = resolver if resolver is not None else system_resolver
    text = str(url).strip()
    if any(ord(c) < 0x20 or c in "\\ \x7f" for c in text):
        return Verdict(
            Decision.DENY, RiskLevel.HIGH, f"URL {text!r} has spaces, backslashes or control characters"
        )
    try:
        parts = urlsplit(text)
        raw_host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        return Verdict(Decision.DENY, RiskLevel.HIGH, f"URL {text!r} cannot be parsed: {exc}")
    if parts.scheme.lower() not in ("http", "https"):
        return Verdict(
            Decision.DENY,
            RiskLevel.HIGH,
            f"only http and https URLs may be fetched, not {parts.scheme or 'a relative URL'!r}",
        )
    if ":" in raw_host and not raw_host.startswith("["):
        raw_host = f"[{raw_host}]"
    host, problem = _normalize_host(raw_host)
    if host is None:
        return Verdict(Decision.DENY, RiskLevel.HIGH, f"{problem}: {text}")
    bare = host.strip("[]")

    for rule in rules.parsed("deny"):
        if rule.tool == "web_fetch" and domain_matches(rule.specifier, bare):
            return Verdict(Decision.DENY, RiskLevel.HIGH, f"{host} is denied by a rule", str(rule))
    allow_rule = next(
        (
            r
            for r in rules.parsed("allow")
            if r.tool == "web_fetch" and r.specifier and domain_matches(r.specifier, bare)
        ),
        None,
    )
    problem = _ssrf_problem(host, resolver)
    if problem and (allow_rule is None or _is_wildcard(allow_rule.specifier)):
        # Only a rule naming this exact host lifts the SSRF refusal: `*.github.io` approves
        # public pages, not an attacker's subdomain that resolves to 127.0.0.1.
        hint = f" (a wildcard rule does not lift this; web_fetch(domain:{bare}) would)" if allow_rule else ""
        return Verdict(
            Decision.DENY,
            RiskLevel.HIGH,
            f"{problem}; fetching it could reach internal services (SSRF){hint}",
        )
    for rule in rules.parsed("ask"):
        if rule.tool == "web_fetch" and domain_matches(rule.specifier, bare):
            return Verdict(
                Decision.ASK, RiskLevel.MEDIUM, f"fetching {host} needs approval by rule", str(rule)
            )
    if parts.username or parts.password:
        return Verdict(
            Decision.ASK, RiskLevel.MEDIUM, f"URL carries credentials in its user-info part: {host}"
        )
    if allow_rule is not None:
        return Verdict(
            Decision.ALLOW,
            RiskLevel.LOW if not problem else RiskLevel.MEDIUM,
            f"{host} is allowed by a rule",
            str(allow_rule),
        )
    return Verdict(Decision.ASK, RiskLevel.MEDIUM, f"fetching {host} sends a request to the internet")
